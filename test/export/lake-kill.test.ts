/**
 * A kill -9 at seeded points of the lake's publish (between any two of its file-system changes, the process really
 * killed with SIGKILL): every file left is whole, and once the lake is recovered (by `vwh export recover` or the next
 * export) it is the previous export file for file when the kill came before the commit point, the new export when
 * after. A small crafted warehouse (two teams' projects, facts over three months, a project-level mart) keeps each
 * killed run about a second.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { exportParquetLake, recoverLake } from '../../src/export/index.js';
import type { LakeManifest } from '../../src/export/lake/manifest.js';
import { BIN, tempDir } from '../fixtures.js';
import { readWithDuckDB, runOn } from './support.js';

/** The lake's module alone: the child starts in a fraction of the CLI's time. */
const ENTRY = resolve('dist/src/export/lake/write.js');
const SEED = Number(process.env.VWH_TEST_SEED ?? 20261124);
const TABLES = ['facts', 'opportunities'];

const dir = tempDir('vwh-lake-kill-').dir;
const before = join(dir, 'before.duckdb');
const after = join(dir, 'after.duckdb');
const previous = join(dir, 'lake-previous');
const next = join(dir, 'lake-next');

beforeAll(async () => {
  await runOn(
    before,
    `
      create schema raw; create schema marts;
      create table raw.projects as
        select (case when i < 2 then 'team-a' else 'team-b' end) as team_id, 'p' || i as id from range(3) r(i);
      create table marts.facts as
        select p.team_id, p.id as project_id, date '2026-01-15' + (d % 75)::int as date, 'brand-' || (d % 4) as brand,
               (d * 7 + i) % 23 as mentions, ((d * 7 + i) % 23) / 23 as share,
               timestamp '2026-04-01 00:00:00' + to_seconds(d) as _extracted_at
          from raw.projects p, range(300) r(d), (select unnest([1, 2]) as i);
      create table marts.opportunities as
        select p.id as project_id, 'domain-' || k || '.example' as domain, k * 1.5 as score
          from raw.projects p, range(20) r(k);`,
  );
  // the next export: every fact of team-a changed, a new month, project p2's opportunities gone
  cpSync(before, after);
  await runOn(
    after,
    `
      update marts.facts set mentions = mentions + 1 where team_id = 'team-a';
      insert into marts.facts select * replace (date + 60 as date) from marts.facts where date = date '2026-03-30';
      delete from marts.opportunities where project_id = 'p2';`,
  );
  await exportParquetLake({ db: before, outDir: previous, tables: TABLES });
  await exportParquetLake({ db: after, outDir: next, tables: TABLES });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every file of the lake but the staging area and the lock (relative path → sha256). */
function visible(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const rel = join(e.parentPath, e.name).slice(root.length + 1);
    if (rel.startsWith('_staging/') || rel === '_manifest.lock') continue;
    out[rel] = createHash('sha256')
      .update(readFileSync(join(root, rel)))
      .digest('hex');
  }
  return out;
}

const dataFiles = (snapshot: Record<string, string>) =>
  Object.keys(snapshot)
    .filter((f) => !f.startsWith('_'))
    .sort();

/** Runs node with `args`; its exit code or signal and what it printed. */
function runNode(
  args: string[],
): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => {
    stdout += String(c);
  });
  child.stderr.on('data', (c) => {
    stderr += String(c);
  });
  return new Promise((done) => child.on('exit', (code, signal) => done({ code, signal, stdout, stderr })));
}

/** Exports `after` into `lake` in a child process that SIGKILLs itself before publish step `kill` (-1: never). */
async function exportKilledAt(lake: string, kill: number): Promise<{ signal: string | null; steps: string[] }> {
  const script = `const m = await import(${JSON.stringify(pathToFileURL(ENTRY).href)}); const steps = [];
    await m.exportParquetLake({ db: ${JSON.stringify(after)}, outDir: ${JSON.stringify(lake)},
      tables: ${JSON.stringify(TABLES)}, onStep: (n, what) => {
        if (n === ${kill}) process.kill(process.pid, 'SIGKILL');
        steps.push(what);
      } });
    process.stdout.write(JSON.stringify(steps));`;
  const run = await runNode(['--input-type=module', '-e', script]);
  if (run.code !== null && run.code !== 0) throw new Error(`export child exited ${run.code}: ${run.stderr}`);
  return { signal: run.signal, steps: run.signal ? [] : (JSON.parse(run.stdout) as string[]) };
}

/** Rows of table `t` in one lake and not the other, either way (multisets, partition columns included). */
async function differs(a: string, b: string, t: string): Promise<number> {
  const rows = (lake: string) =>
    `select * from read_parquet('${lake}/marts/${t}/**/*.parquet', hive_partitioning = true)`;
  const [d] = await readWithDuckDB<{ n: number }>(
    `select (select count(*) from (${rows(a)} except all ${rows(b)})) + (select count(*) from (${rows(b)} except all ${rows(a)}))::int as n`,
  );
  return Number(d?.n);
}

/** `count` distinct points of [0, total), always the first, the last and both sides of the commit point. */
function seededPoints(total: number, commit: number, count: number, seed: number): number[] {
  let state = seed >>> 0;
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const points = new Set([0, commit - 1, commit, commit + 1, total - 1]);
  while (points.size < Math.min(count, total)) points.add(Math.floor(random() * total));
  return [...points].filter((p) => p >= 0 && p < total).sort((a, b) => a - b);
}

describe('parquet lake under kill -9', () => {
  it('a kill between any two publish steps leaves whole files; recovery gives the previous export before the commit point, the new one after', async () => {
    const dry = join(dir, 'lake-dry');
    cpSync(previous, dry, { recursive: true });
    const { steps } = await exportKilledAt(dry, -1);
    expect(dataFiles(visible(dry))).toEqual(dataFiles(visible(next)));
    const commit = steps.indexOf('commit');
    expect(steps.filter((s) => s.startsWith('set aside')).length).toBeGreaterThan(3);
    expect(steps.filter((s) => s.startsWith('place')).length).toBeGreaterThan(3);
    const old = visible(previous);
    const points = seededPoints(steps.length, commit, 10, SEED);
    for (const [i, point] of points.entries()) {
      const lake = join(dir, `lake-kill-${point}`);
      cpSync(previous, lake, { recursive: true });
      const killed = await exportKilledAt(lake, point);
      expect(killed.signal, `step ${point} ${steps[point]}`).toBe('SIGKILL');
      // every file in sight is whole: DuckDB reads them all
      const files = Object.keys(visible(lake))
        .filter((f) => f.endsWith('.parquet'))
        .map((f) => join(lake, f));
      const [read] = await readWithDuckDB<{ n: number }>(
        `select count(*)::int as n from read_parquet(${JSON.stringify(files).replace(/"/g, "'")})`,
      );
      expect(read?.n).toBeGreaterThan(0);
      if (point <= steps.indexOf('journal') + 1) expect(visible(lake), `step ${point}`).toEqual(old);
      // recovery: every other point in-process, the others through the readers' command
      if (i % 2 === 0) await recoverLake(lake, silentLogger);
      else {
        const cli = await runNode([BIN, 'export', 'recover', '--out', lake, '--log-format', 'json']);
        expect(cli.code, cli.stderr).toBe(0);
      }
      expect(existsSync(join(lake, '_staging')), `step ${point}`).toBe(false);
      expect(existsSync(join(lake, '_manifest.lock')), `step ${point}`).toBe(false);
      const now = visible(lake);
      if (point <= commit) expect(now, `step ${point} ${steps[point]}`).toEqual(old);
      else {
        expect(dataFiles(now), `step ${point} ${steps[point]}`).toEqual(dataFiles(visible(next)));
        for (const t of TABLES) expect(await differs(lake, next, t), `step ${point} ${t}`).toBe(0);
        const manifest = JSON.parse(readFileSync(join(lake, '_manifest.json'), 'utf8')) as LakeManifest;
        const fresh = JSON.parse(readFileSync(join(next, '_manifest.json'), 'utf8')) as LakeManifest;
        for (const t of TABLES) expect(manifest.tables[`marts.${t}`]?.rows).toBe(fresh.tables[`marts.${t}`]?.rows);
      }
      // and the next export after it lands the new data whatever the kill left (checked at two points: cost)
      if (point === commit || point === commit + 1) {
        await exportParquetLake({ db: after, outDir: lake, tables: TABLES });
        expect(dataFiles(visible(lake))).toEqual(dataFiles(visible(next)));
        for (const t of TABLES) expect(await differs(lake, next, t), `step ${point} ${t} rerun`).toBe(0);
      }
      rmSync(lake, { recursive: true, force: true });
    }
  }, 180_000);
});
