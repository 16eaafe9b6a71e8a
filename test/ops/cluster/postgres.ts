/**
 * A real PostgreSQL for the cluster tests, from Debian's binaries (/usr/lib/postgresql/<major>/bin; `.ci/run`
 * installs the package): a data folder in a temp folder, a loopback port of its own, its unix socket in the temp
 * folder, a password (scram) so that redaction is tested for real. initdb refuses root, so as root every command
 * runs as the `postgres` user. One server per test file: `startPostgres` in beforeAll, `stop` in afterAll.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export const PG_PASSWORD = 'pg-s3cret-Passw0rd';
const PG_USER = 'vwh';

export interface Postgres {
  url: string;
  port: number;
  /** Stops the server (fast shutdown: open connections are cut), as a restart's first half. */
  stop(): void;
  start(): void;
  /** Stops it and removes its folder. */
  destroy(): void;
}

export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] ? join(root, majors[0], 'bin') : undefined;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function startPostgres(): Promise<Postgres> {
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed: apt-get install postgresql (.ci/run does)');
  const dir = mkdtempSync(join(tmpdir(), 'vwh-pg-'));
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]) =>
    asRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { stdio: 'pipe' })
      : execFileSync(join(bin, tool), args, { stdio: 'pipe' });
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${PG_PASSWORD}\n`);
  if (asRoot) execFileSync('chown', ['postgres', pwfile]);
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', PG_USER, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '--no-sync', '-E', 'UTF8']);
  rmSync(pwfile);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
  ].join(' ');
  const start = () => run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '60', '-o', options, 'start']);
  const stop = () => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    } catch {
      // already stopped
    }
  };
  start();
  return {
    url: `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    destroy() {
      stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
