/**
 * The cluster mode against a real PostgreSQL (postgres.ts) and the built CLI: `vwh worker`s as child processes,
 * `vwh run` queueing a night and waiting for it, four teams each on its own reference server (port 0, scaled rate
 * window). One worker is killed -9 while it holds a job: every team still completes, no team was ever run by two
 * workers at once (the ledger's intervals), and the shared lake equals one machine's run of the same teams row for
 * row. Then a night with the two workers left, PostgreSQL restarted mid-night, the lake's manifest in PostgreSQL
 * (exports killed before and after their commit, two teams at once, a table of another shape), a worker whose disk
 * is full, and two schedulers. One PostgreSQL for the file; the one-machine run the lake is compared with runs
 * while the cluster's first night does.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/log.js';
import { repairFromCatalog } from '../../../src/export/lake/catalog-publish.js';
import type { LakeManifest } from '../../../src/export/lake/manifest.js';
import { exportParquetLake } from '../../../src/export/lake/write.js';
import type { Cluster } from '../../../src/ops/cluster/connect.js';
import { postgresLakeCatalog } from '../../../src/ops/cluster/lake-catalog.js';
import { CLUSTER_DDL } from '../../../src/ops/cluster/schema.js';
import { type ClusterStatus, clusterStatus } from '../../../src/ops/cluster/status.js';
import { runNightly } from '../../../src/ops/nightly.js';
import { type ReferenceServer, startReferenceServer } from '../../../src/reference/index.js';
import { Database } from '../../../src/warehouse/duckdb.js';
import { requireBuilt, start, vwh } from '../../cli/support.js';
import { lakeDifferences, tablesWithFiles } from '../../export/support.js';
import { PG_PASSWORD, type Postgres, startPostgres } from './postgres.js';

const TODAY = '2026-02-10';
const SHAPE = { projects: 1, prompts: 2, historyDays: 5, rateWindowMs: 200 } as const;
const TEAMS = ['north', 'south', 'east', 'west'];
/** Short lease, heartbeat and maintenance: a dead worker's job is retried within seconds. */
const CLUSTER = {
  retryLimit: 10,
  // 8 s: room for a live worker's heartbeat on a loaded 2-core machine (a takeover still comes within seconds)
  leaseSeconds: 8,
  heartbeatSeconds: 1,
  maintenanceSeconds: 1,
  retryDelaySeconds: 0,
  pollSeconds: 0.5,
};

const dir = mkdtempSync(join(tmpdir(), 'vwh-cluster-'));
const dataDir = join(dir, 'shared');
const clusterLake = join(dataDir, 'lake');
const oneLake = join(dir, 'lake-one');
const configPath = join(dir, 'cluster.config.json');
let postgres: Postgres;
let db: pg.Pool;
let servers: ReferenceServer[] = [];
/** The one-machine run of the same teams: its status once done. */
let oneMachine: Promise<string>;
const workers: { child: ChildProcess; done: Promise<unknown>; output: () => string }[] = [];

function teamsConfig() {
  return TEAMS.map((team, i) => {
    const apiKeyFile = join(dir, `${team}.key`);
    writeFileSync(apiKeyFile, `${servers[i]?.demoApiKey}\n`);
    return { team, apiKeyFile, baseUrl: servers[i]?.url };
  });
}

function clusterSettingsOf() {
  return { ...CLUSTER, url: postgres.url, dataDir };
}

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { VWH_CLUSTER_URL: postgres.url, ...extra };
}

/** The workers' last lines, for a failure's message. */
function workerOutput(): string {
  return workers.map((w, i) => `\n--- worker ${i}\n${w.output().slice(-4000)}`).join('');
}

/** Stops every worker still running (SIGTERM: each hands its job back) and waits for them. */
async function stopWorkers(): Promise<void> {
  for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGTERM');
  await Promise.all(workers.map((w) => w.done));
}

function startWorker(extra: NodeJS.ProcessEnv = {}, config = configPath) {
  const worker = start(['worker', '--config', config, '--log-format', 'json'], { env: env(extra) });
  workers.push(worker);
  return worker;
}

function runNight(extra: string[] = [], config = configPath) {
  return start(
    ['run', '--config', config, '--today', TODAY, '--rate-window-ms', String(SHAPE.rateWindowMs), ...extra],
    { env: env() },
  );
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Run {
  run_id: string;
  night_id: string;
  team: string;
  attempt: number;
  pid: number;
  status: string;
  exit_code: number | null;
  error: string | null;
  started_at: Date;
  ended_at: Date | null;
}

async function ledger(): Promise<Run[]> {
  return (await db.query<Run>('select * from vwh.team_runs order by team, started_at')).rows;
}

/** Pairs of runs of one team whose intervals [started_at, ended_at] overlap. */
function overlaps(runs: Run[]): string[] {
  const out: string[] = [];
  for (const team of TEAMS) {
    const own = runs.filter((r) => r.team === team);
    for (let i = 1; i < own.length; i++) {
      const before = own[i - 1] as Run;
      const after = own[i] as Run;
      if (!before.ended_at || before.ended_at > after.started_at) out.push(`${before.run_id} / ${after.run_id}`);
    }
  }
  return out;
}

async function lakeDiffs(): Promise<Record<string, number>> {
  expect(await oneMachine).toBe('succeeded');
  expect(tablesWithFiles(clusterLake)).toEqual(tablesWithFiles(oneLake));
  return lakeDifferences(oneLake, clusterLake);
}

beforeAll(async () => {
  requireBuilt();
  postgres = await startPostgres();
  db = new pg.Pool({ connectionString: postgres.url, max: 2 });
  db.on('error', () => {});
  servers = await Promise.all(
    TEAMS.map((_, i) => startReferenceServer({ port: 0, today: TODAY, demo: true, seed: 60 + i, ...SHAPE })),
  );
  const teams = teamsConfig();
  const exports = { parquet: { outDir: clusterLake, raw: true, staging: true } };
  writeFileSync(configPath, JSON.stringify({ teams, exports, threads: 1, cluster: { dataDir, ...CLUSTER } }));
  // one machine, the same teams, its own warehouse and lake: what the cluster's lake must equal
  const oneConfig = join(dir, 'one.config.json');
  writeFileSync(
    oneConfig,
    JSON.stringify({ teams, threads: 1, exports: { parquet: { outDir: oneLake, raw: true, staging: true } } }),
  );
  const out = new PassThrough();
  out.resume();
  // started now, awaited where the lakes are compared: it runs while the cluster's first night waits on leases
  oneMachine = runNightly(
    { db: join(dir, 'one', 'warehouse.duckdb'), config: oneConfig, today: TODAY, rateWindowMs: SHAPE.rateWindowMs },
    { out, logger: silentLogger, summary: false },
  ).then((one) => one.status);
}, 120_000);

afterAll(async () => {
  await oneMachine?.catch(() => {});
  for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  await Promise.all(workers.map((w) => w.done));
  await db?.end();
  await Promise.all(servers.map((s) => s.close()));
  postgres?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('config', () => {
  it('refuses a URL that is not PostgreSQL (exit 64) and an unreachable server (exit 1) without its password, writing nothing', {
    timeout: 120_000,
  }, async () => {
    const bad = join(dir, 'bad.config.json');
    const badData = join(dir, 'never');
    writeFileSync(bad, JSON.stringify({ teams: teamsConfig(), cluster: { dataDir: badData, url: 'mysql://x' } }));
    const noUrl = join(dir, 'no-url.config.json');
    writeFileSync(noUrl, JSON.stringify({ teams: teamsConfig(), cluster: { dataDir: badData } }));
    const down = `postgres://vwh:${PG_PASSWORD}@127.0.0.1:1/vwh`;
    // a wrong password: the server answers, refuses, and the password is still not shown
    const wrongPassword = postgres.url.replace(PG_PASSWORD, 'not-the-password');
    // independent commands: started together
    const [wrong, ...ran] = await Promise.all([
      vwh(['run', '--config', bad]),
      ...[['run'], ['worker']].map((args) => vwh([...args, '--config', noUrl], { env: { VWH_CLUSTER_URL: down } })),
      vwh(['run', '--config', noUrl], { env: { VWH_CLUSTER_URL: wrongPassword } }),
    ]);
    expect(wrong?.code).toBe(64);
    expect(wrong?.stderr).toMatch(/cluster\.url: must be a PostgreSQL URL/);
    const refused = ran.pop() as Awaited<ReturnType<typeof vwh>>;
    for (const [i, down] of ran.entries()) {
      expect(down.code, ['run', 'worker'][i]).toBe(1);
      expect(down.stderr).toMatch(
        /Cannot reach the cluster's PostgreSQL at postgres:\/\/vwh:\*\*\*@127\.0\.0\.1:1\/vwh/,
      );
      expect(down.stdout + down.stderr).not.toContain(PG_PASSWORD);
    }
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/password authentication failed/);
    expect(refused.stderr).not.toContain('not-the-password');
    expect(existsSync(badData)).toBe(false);
  });
});

describe('four teams, three workers, one killed -9 while it holds a job', () => {
  let runs: Run[] = [];
  let killedPid = 0;
  let status: ClusterStatus | undefined;

  beforeAll(async () => {
    // a worker dead for eight days and one for two: the first is forgotten when a worker starts
    await db.query(CLUSTER_DDL);
    await db.query(
      `insert into vwh.workers (worker_id, host, pid, concurrency, heartbeat_at)
       values ('eight-days-silent', 'gone', 1, 1, now() - interval '8 days'),
              ('two-days-silent', 'gone', 2, 1, now() - interval '2 days')`,
    );
    const three = [startWorker(), startWorker(), startWorker()];
    const night = runNight();
    // a running night of one of the workers: kill that worker
    const victim = await until('a worker holding a job', async () => {
      const { rows } = await db.query<{ pid: number }>(`select pid from vwh.team_runs where status = 'running'`);
      return three.find((w) => rows.some((r) => r.pid === w.child.pid));
    });
    killedPid = victim.child.pid ?? 0;
    // vwh status while it runs: the team's job with the worker's host and pid, the three workers alive
    status = await clusterStatus({ pool: db, settings: clusterSettingsOf() } as unknown as Cluster, TEAMS, {
      now: Date.now(),
      maxAgeMs: 86_400_000,
    });
    victim.child.kill('SIGKILL');
    const ran = await night.done;
    expect(ran.code, ran.stdout + ran.stderr + workerOutput()).toBe(0);
    runs = await ledger();
  }, 300_000);

  it("completes every team, the killed worker's team on another worker", () => {
    const last = TEAMS.map((team) => runs.filter((r) => r.team === team).at(-1));
    expect(last.map((r) => r?.status)).toEqual(TEAMS.map(() => 'succeeded'));
    const abandoned = runs.filter((r) => r.status === 'abandoned');
    expect(abandoned.map((r) => r.pid)).toEqual([killedPid]);
    const takenOver = runs.find((r) => r.team === abandoned[0]?.team && r.status === 'succeeded');
    const team = JSON.stringify(runs.filter((r) => r.team === takenOver?.team));
    expect(takenOver?.pid, team).not.toBe(killedPid);
    expect(takenOver?.attempt, team).toBe(2);
  });

  it('shows in vwh status the running job with its worker host and pid, and the workers alive', () => {
    const running = status?.teams.find((t) => t.job?.pid === killedPid);
    expect(running?.job).toMatchObject({ state: 'active', host: hostname(), pid: killedPid });
    expect(status?.workers.filter((w) => w.alive).map((w) => w.pid)).toEqual(
      expect.arrayContaining(workers.slice(0, 3).map((w) => w.child.pid)),
    );
    expect(status?.workers.every((w) => w.host === hostname() && w.heartbeat_at)).toBe(true);
  });

  it('forgets workers stopped or silent for a week when a worker starts', async () => {
    const { rows } = await db.query<{ worker_id: string }>('select worker_id from vwh.workers order by worker_id');
    expect(rows.map((r) => r.worker_id)).toContain('two-days-silent');
    expect(rows.map((r) => r.worker_id)).not.toContain('eight-days-silent');
  });

  it("never ran a team on two workers at once (the ledger's intervals)", () => {
    expect(overlaps(runs)).toEqual([]);
  });

  it("makes the lake one machine's run of the same teams makes, row for row", async () => {
    expect(await lakeDiffs()).toEqual({});
    expect(existsSync(join(clusterLake, '_manifest.json'))).toBe(true);
    for (const team of TEAMS)
      expect(existsSync(join(dataDir, 'teams', team, 'published', 'warehouse.duckdb'))).toBe(true);
  }, 180_000);

  it('runs a second night on the two workers left, through a PostgreSQL restart: nothing lost, nothing doubled', async () => {
    const night = runNight(['--log-format', 'json']);
    await until('a running night', async () => {
      const { rows } = await db.query(`select 1 from vwh.team_runs where status = 'running'`);
      return rows.length ? true : undefined;
    });
    postgres.stop();
    await new Promise((r) => setTimeout(r, 1500));
    postgres.start();
    const ran = await night.done;
    expect(ran.code, ran.stdout + ran.stderr + workerOutput()).toBe(0);
    const lines = ran.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; night?: string; teams?: { state: string; pid: number }[] });
    const summary = lines.find((l) => l.msg === 'night summary');
    expect(summary?.teams?.map((t) => t.state)).toEqual(TEAMS.map(() => 'completed'));
    expect(summary?.teams?.some((t) => t.pid === killedPid)).toBe(false);
    const { rows } = await db.query<{ team: string; n: number }>(
      `select team, count(*)::int as n from vwh.team_runs where night_id = $1 and status = 'succeeded'
        group by team order by team`,
      [summary?.night],
    );
    expect(rows).toEqual([...TEAMS].sort().map((team) => ({ team, n: 1 })));
    expect(overlaps(await ledger())).toEqual([]);
    // nothing doubled in the lake: the files PostgreSQL lists are the folder's, with one machine's rows per table
    const listed = await catalogFiles('lake');
    expect(listed).toEqual(manifestFiles(clusterLake));
    expect(listed).toEqual(lakeFiles(clusterLake));
    expect(rowsPerTable(clusterLake)).toEqual(rowsPerTable(oneLake));
  }, 180_000);
});

/** The files the catalog lists for `lake`, relative to the lake's folder, sorted. */
async function catalogFiles(lake: string): Promise<string[]> {
  const { rows } = await db.query<{ file: string }>(
    `select concat_ws('/', t.path, nullif(p.partition, ''), f) as file
       from vwh.lake_partitions p join vwh.lake_tables t using (lake, scope, table_key), unnest(p.files) f
      where p.lake = $1 order by 1`,
    [lake],
  );
  return rows.map((r) => r.file);
}

function readManifest(root: string): LakeManifest {
  return JSON.parse(readFileSync(join(root, '_manifest.json'), 'utf8')) as LakeManifest;
}

/** The files `_manifest.json` lists. */
function manifestFiles(root: string): string[] {
  return Object.values(readManifest(root).tables)
    .flatMap((t) => t.partitions.flatMap((p) => p.files.map((f) => [t.path, p.path, f].filter(Boolean).join('/'))))
    .sort();
}

/** The Parquet files in the lake's folder (its staging left out). */
function lakeFiles(root: string): string[] {
  return readdirSync(root, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.parquet') && !f.startsWith('_staging'))
    .map((f) => f.split(sep).join('/'))
    .sort();
}

function rowsPerTable(root: string): Record<string, number> {
  return Object.fromEntries(Object.entries(readManifest(root).tables).map(([key, t]) => [key, t.rows]));
}

describe("the lake's manifest in PostgreSQL", () => {
  const lake = join(dir, 'lake-catalog');
  const name = 'catalog-test';
  const tables = ['brand_visibility_daily', 'share_of_voice_daily'];
  const warehouse = (team: string) => join(dataDir, 'teams', team, 'warehouse.duckdb');
  const catalog = () => postgresLakeCatalog(db, name);
  /** A copy of a team's warehouse changed by `sql` (the team's own stays as its nights left it). */
  async function changedCopy(team: string, file: string, sql: string): Promise<string> {
    const copy = join(dir, file);
    copyFileSync(warehouse(team), copy);
    const duck = await Database.open(copy);
    try {
      await duck.session.run(sql);
      await duck.session.run('checkpoint');
    } finally {
      duck.close();
    }
    return copy;
  }
  /** Exports `db` in a child process that SIGKILLs itself before the publish step named `step`. */
  async function exportKilledAt(db: string, step: string): Promise<string | null> {
    const script = `const { exportParquetLake } = await import(${JSON.stringify(pathToFileURL(resolve('dist/src/export/lake/write.js')).href)});
      const { postgresLakeCatalog } = await import(${JSON.stringify(pathToFileURL(resolve('dist/src/ops/cluster/lake-catalog.js')).href)});
      const { default: pg } = await import('pg');
      const pool = new pg.Pool({ connectionString: process.env.VWH_CLUSTER_URL });
      await exportParquetLake({ db: ${JSON.stringify(db)}, outDir: ${JSON.stringify(lake)}, tables: ${JSON.stringify(tables)},
        catalog: postgresLakeCatalog(pool, ${JSON.stringify(name)}),
        onStep: (n, what) => { if (what === ${JSON.stringify(step)}) process.kill(process.pid, 'SIGKILL'); } });
      await pool.end();`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env: env(), stdio: 'pipe' });
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += String(c);
    });
    const [code, signal] = await new Promise<[number | null, string | null]>((done) =>
      child.on('exit', (c, s) => done([c, s])),
    );
    if (signal !== 'SIGKILL') throw new Error(`the export was not killed (exit ${code}): ${stderr}`);
    return signal;
  }
  const team = (file: string) => /team_id=([^/]+)/.exec(file)?.[1];

  it('keeps the cluster lake in PostgreSQL: _manifest.json and the folder are what it lists; no lock file, no _manifests/', async () => {
    const listed = await catalogFiles('lake');
    expect(TEAMS.filter((t) => !listed.some((f) => team(f) === t))).toEqual([]);
    expect(listed).toEqual(manifestFiles(clusterLake));
    expect(listed).toEqual(lakeFiles(clusterLake));
    expect(existsSync(join(clusterLake, '_manifest.lock'))).toBe(false);
    expect(existsSync(join(clusterLake, '_manifests'))).toBe(false);
  });

  it("lands two teams' exports published at once", async () => {
    await Promise.all(
      ['north', 'south'].map((t) => exportParquetLake({ db: warehouse(t), outDir: lake, tables, catalog: catalog() })),
    );
    const listed = await catalogFiles(name);
    expect(new Set(listed.map(team))).toEqual(new Set(['north', 'south']));
    expect(listed).toEqual(manifestFiles(lake));
    expect(listed).toEqual(lakeFiles(lake));
    const one = readManifest(oneLake).tables;
    for (const key of Object.keys(readManifest(lake).tables)) {
      const rows = (m: LakeManifest['tables']) =>
        m[key]?.partitions.filter((p) => ['north', 'south'].includes(p.team_id ?? '')).reduce((n, p) => n + p.rows, 0);
      expect(rows(readManifest(lake).tables), key).toBe(rows(one));
    }
  });

  it('refuses a table written with other columns before any write (exit 64)', async () => {
    const before = { listed: await catalogFiles(name), files: lakeFiles(lake) };
    const other = await changedCopy(
      'north',
      'north-other-shape.duckdb',
      'alter table marts.brand_visibility_daily add column extra integer',
    );
    const refused = exportParquetLake({ db: other, outDir: lake, tables, catalog: catalog() });
    await expect(refused).rejects.toMatchObject({ exitCode: 64 });
    await expect(refused).rejects.toThrow(
      /marts\.brand_visibility_daily differs from the files team_id=south wrote .*only here: extra/,
    );
    expect({ listed: await catalogFiles(name), files: lakeFiles(lake) }).toEqual(before);
  });

  it("never lists a killed export's files; the next export, or a worker starting, makes the folder what PostgreSQL lists", async () => {
    const before = await catalogFiles(name);
    const changed = await changedCopy(
      'north',
      'north-changed.duckdb',
      'delete from marts.brand_visibility_daily where rowid % 2 = 0',
    );
    // killed before its commit: its files were renamed in, PostgreSQL lists none of them
    await exportKilledAt(changed, 'commit');
    expect(await catalogFiles(name)).toEqual(before);
    expect(manifestFiles(lake)).toEqual(before);
    const placed = lakeFiles(lake).filter((f) => !before.includes(f));
    expect(placed.length).toBeGreaterThan(0);
    // killed after its commit, before `_manifest.json` (the next export removed the first one's files first)
    await exportKilledAt(changed, 'union manifest');
    const after = await catalogFiles(name);
    expect(after.filter((f) => placed.includes(f))).toEqual([]);
    expect(after.filter((f) => team(f) === 'north')).not.toEqual(before.filter((f) => team(f) === 'north'));
    expect(after.filter((f) => team(f) === 'south')).toEqual(before.filter((f) => team(f) === 'south'));
    // the replaced files are still there and `_manifest.json` still lists them: a reader of the folder reads the old export whole
    expect(manifestFiles(lake)).toEqual(before);
    expect(lakeFiles(lake)).toEqual([...new Set([...before, ...after])].sort());
    // repaired from PostgreSQL (what a worker does when it starts, and every export before it plans)
    const repair = await repairFromCatalog(lake, catalog(), silentLogger);
    expect(repair.manifest).toBe(true);
    expect(manifestFiles(lake)).toEqual(after);
    expect(lakeFiles(lake)).toEqual(after);
    const rows = readManifest(lake)
      .tables['marts.brand_visibility_daily']?.partitions.filter((p) => p.team_id === 'north')
      .reduce((n, p) => n + p.rows, 0);
    const duck = await Database.open(changed);
    try {
      const n = await duck.session.scalar<number | bigint>('select count(*) from marts.brand_visibility_daily');
      expect(rows).toBe(Number(n));
    } finally {
      duck.close();
    }
  }, 120_000);
});

describe('a team whose job fails after its retries', () => {
  it("fails the night with the team's exit code, and status --check says FAILED", async () => {
    const ghost = join(dir, 'ghost.config.json');
    const keyFile = join(dir, 'ghost.key');
    writeFileSync(keyFile, 'vwh_test_refused_key_0000000000\n');
    writeFileSync(
      ghost,
      JSON.stringify({
        teams: [{ team: 'ghost', apiKeyFile: keyFile, baseUrl: servers[0]?.url }],
        exports: {},
        cluster: { dataDir, ...CLUSTER, retryLimit: 1 },
      }),
    );
    // workers run one config: those of another would refuse ghost's job
    await stopWorkers();
    const worker = startWorker({}, ghost);
    const ran = await runNight(['--log-format', 'json'], ghost).done;
    worker.child.kill('SIGTERM');
    await worker.done;
    // the API refused the key: exit 3, as vwh run on one machine, after two attempts
    expect(ran.code, ran.stdout + ran.stderr).toBe(3);
    const summary = ran.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; teams?: unknown[] })
      .find((l) => l.msg === 'night summary');
    expect(summary?.teams).toEqual([
      expect.objectContaining({ team: 'ghost', state: 'failed', status: 'failed', exit_code: 3, attempts: 2 }),
    ]);
    const check = await vwh(['status', '--config', ghost, '--check'], { env: env() });
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/^FAILED: .*\n {2}team ghost: its last job failed after 2 attempt\(s\)/);
  }, 120_000);
});

describe('a worker whose disk is full, then one stopped mid-night', () => {
  const full = join(dir, 'full');
  let mounted = false;

  beforeAll(() => {
    // a 512 KiB tmpfs as this worker's mount of the shared folder (VWH_CLUSTER_DATA_DIR): a warehouse cannot fit
    mkdirSync(full, { recursive: true });
    if (userInfo().uid === 0) {
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=512k', 'tmpfs', full]);
        mounted = true;
      } catch {
        mounted = false;
      }
    }
  });

  afterAll(() => {
    if (mounted) execFileSync('umount', [full]);
  });

  it('fails its job cleanly and another worker takes it; SIGTERM hands a job back', async (context) => {
    if (!mounted) context.skip();
    // the workers of the first describe are stopped: only the full one runs first
    await stopWorkers();
    // one team: its night fails on the full worker, then runs on a healthy one
    const oneTeam = join(dir, 'one-team.config.json');
    writeFileSync(
      oneTeam,
      JSON.stringify({
        teams: teamsConfig().slice(0, 1),
        threads: 1,
        exports: { parquet: { outDir: clusterLake, raw: true, staging: true } },
        cluster: { dataDir, ...CLUSTER },
      }),
    );
    const fullWorker = startWorker({ VWH_CLUSTER_DATA_DIR: full }, oneTeam);
    const night = runNight([], oneTeam);
    const failed = await until('the full worker failing a job', async () => {
      const { rows } = await db.query<Run>(`select * from vwh.team_runs where pid = $1 and status = 'failed' limit 1`, [
        fullWorker.child.pid,
      ]);
      return rows[0];
    });
    expect(failed.error).toMatch(/space|No space|ENOSPC|disk/i);
    fullWorker.child.kill('SIGTERM');
    await fullWorker.done;
    // two healthy workers: the one that takes the retry is stopped (SIGTERM) while it runs and hands the job back
    // to the other
    const healthy = [startWorker({}, oneTeam), startWorker({}, oneTeam)];
    const stopped = await until('a healthy worker running the night', async () => {
      const { rows } = await db.query<{ pid: number }>(
        `select pid from vwh.team_runs where night_id = $1 and status = 'running'`,
        [failed.night_id],
      );
      return healthy.find((w) => rows.some((r) => r.pid === w.child.pid));
    });
    stopped.child.kill('SIGTERM');
    expect((await stopped.done).code).toBe(0);
    const ran = await night.done;
    expect(ran.code, ran.stdout + ran.stderr + workerOutput()).toBe(0);
    const attempts = (await ledger()).filter((r) => r.night_id === failed.night_id && r.team === failed.team);
    expect(attempts.find((r) => r.pid === stopped.child.pid)).toMatchObject({
      status: 'interrupted',
      error: 'the worker stopped (SIGTERM) at a safe point; the job was handed back',
    });
    const other = healthy.find((w) => w !== stopped);
    expect(attempts.at(-1)).toMatchObject({ status: 'succeeded', pid: other?.child.pid });
    expect(overlaps(attempts)).toEqual([]);
  }, 180_000);
});

describe('two vwh schedule processes', () => {
  it('queue one night per firing: the catch-up of a missed firing once, and each cron tick once', async () => {
    await stopWorkers();
    const sched = join(dir, 'schedule.config.json');
    // a team no worker runs here: the nights stay queued, and are counted
    writeFileSync(
      sched,
      JSON.stringify({
        teams: teamsConfig()
          .slice(0, 1)
          .map((t) => ({ ...t, team: 'tick' })),
        cluster: { dataDir, ...CLUSTER },
      }),
    );
    const nights = async () =>
      (
        await db.query<{ fire_at: Date; trigger: string }>(
          `select fire_at, trigger from vwh.nights where teams = array['tick'] order by fire_at`,
        )
      ).rows;
    // a daily firing already past: both catch up at once, one queues it
    const both = await Promise.all(
      [1, 2].map(() =>
        vwh(['schedule', '--config', sched, '--cron', '0 0 * * *', '--once', '--log-format', 'json'], { env: env() }),
      ),
    );
    expect(both.map((r) => r.code)).toEqual([0, 0]);
    expect(
      (await nights()).map((n) => n.trigger),
      both.map((r) => r.stdout + r.stderr).join('\n'),
    ).toEqual(['catch-up']);
    expect(
      both
        .map((r) => r.stderr + r.stdout)
        .join('\n')
        .match(/night queued for the workers/g)?.length,
    ).toBe(1);
    // every 2 seconds of the next two minutes (cron.ts lists a day's firings: an every-second cron over the whole
    // day costs seconds to list), two schedulers: each firing is queued once
    const now = new Date();
    const soon = new Date(now.getTime() + 60_000);
    const cron = `*/2 ${now.getUTCMinutes()},${soon.getUTCMinutes()} ${now.getUTCHours()},${soon.getUTCHours()} * * *`;
    const running = [1, 2].map(() =>
      start(['schedule', '--config', sched, '--cron', cron, '--log-format', 'json'], { env: env() }),
    );
    await until('four ticks', async () => ((await nights()).length >= 5 ? true : undefined), 30_000).catch(
      (error: Error) => {
        for (const r of running) r.child.kill('SIGKILL');
        throw new Error(`${error.message}: ${running.map((r) => r.output().slice(-3000)).join('\n---\n')}`);
      },
    );
    for (const r of running) r.child.kill('SIGTERM');
    const logs = await Promise.all(running.map((r) => r.done));
    // every night after the first catch-up (theirs at start, then the ticks) queued by exactly one of the two
    const queued = logs.map((l) => (l.stdout + l.stderr).match(/night queued for the workers/g)?.length ?? 0);
    expect(queued.reduce((a, b) => a + b, 0)).toBe((await nights()).length - 1);
    expect((await nights()).filter((n) => n.trigger === 'schedule').length).toBeGreaterThanOrEqual(3);
    const taken = logs.map((l) => (l.stdout + l.stderr).match(/queued by another scheduler/g)?.length ?? 0);
    expect(taken.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    // one job for the team however many firings: a night still queued is not queued twice
    const { rows } = await db.query(`select id from pgboss.job where singleton_key = 'tick'`);
    expect(rows).toHaveLength(1);
  }, 120_000);
});
