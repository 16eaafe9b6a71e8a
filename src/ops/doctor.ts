/**
 * `vwh doctor`: checks what a nightly run needs and says what to fix: the config, each key (one request: valid?
 * which tier? the API's day against the local clock), the warehouse (writable, or who holds it), the run lock, the
 * free disk space, and the published copy.
 */
import { accessSync, constants, existsSync, statfsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { request } from 'undici';
import { endpoint } from '../api/catalogue.js';
import { DEFAULT_CRON, loadConfig, readKey, type SyncConfig } from '../core/config.js';
import { msToDay } from '../core/days.js';
import { isVwhError, maskKey, registerSecret } from '../core/errors.js';
import { readHolder } from '../core/lock-file.js';
import { quoteIdent } from '../core/sql.js';
import { defaultTargetDir } from '../models/artifacts/write.js';
import { loadProject } from '../models/project.js';
import { Database, damagedFileError, isDamage } from '../warehouse/duckdb.js';
import { CronTrigger } from './cron.js';
import { wantsEmbedded } from './embedded.js';
import { describeHolder, lockPathFor, runInProgress, staleLockMs } from './lock.js';
import { dbPathOf, exportsOf, journalDirOf, nearbyWarehouses, publishPathOf } from './paths.js';

export interface Check {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

export interface DoctorFlags {
  config?: string;
  db?: string;
  keyFile?: string;
  baseUrl?: string;
  /** Also read every block of the warehouse and of the published copy (DuckDB checks each block's checksum). */
  deep?: boolean;
}

export async function doctor(flags: DoctorFlags, now: number = Date.now()): Promise<Check[]> {
  const checks: Check[] = [];
  let config: SyncConfig;
  try {
    config = loadConfig(flags.config);
    const file = flags.config ?? 'vwh.config.json';
    checks.push({ name: 'config', status: 'ok', detail: existsSync(file) ? file : `none (no ${file}): the defaults` });
    checks.push(scheduleCheck(config, flags.config));
    if (config.models?.dir) checks.push(await modelsCheck(config.models.dir, flags.config));
  } catch (error) {
    // the other checks still run, on the defaults: one run of doctor shows every problem
    checks.push({
      name: 'config',
      status: 'fail',
      detail: `${(error as Error).message} (the checks below use the defaults)`,
    });
    config = {};
  }
  checks.push(...(await keyChecks(flags, config, now)));
  const db = dbPathOf(flags, config);
  checks.push(await warehouseCheck(db, now, staleLockMs(config)));
  checks.push(...diskChecks(db, config));
  const published = publishPathOf(db, config);
  checks.push(await publishedCheck(published));
  if (flags.deep) {
    checks.push(await deepCheck('warehouse', db));
    if (published) checks.push(await deepCheck('published', published));
  }
  return checks;
}

/** The schedule as `vwh schedule` would read it: a cron expression and a zone it accepts. */
function scheduleCheck(config: SyncConfig, path: string | undefined): Check {
  const file = path ?? 'vwh.config.json';
  const cron = config.schedule?.cron ?? DEFAULT_CRON;
  const zone = config.schedule?.timezone ?? 'UTC';
  try {
    const trigger = new CronTrigger(cron, zone, {
      cron: `schedule.cron in ${file}`,
      timezone: `schedule.timezone in ${file}`,
    });
    return {
      name: 'schedule',
      status: 'ok',
      detail: `"${cron}" in ${zone}: next run ${trigger.describe(trigger.next(Date.now()))}`,
    };
  } catch (error) {
    return { name: 'schedule', status: 'fail', detail: (error as Error).message };
  }
}

/** A configured models folder, read as `vwh run` and `vwh models build` read it: it exists and its models parse. */
async function modelsCheck(dir: string, path: string | undefined): Promise<Check> {
  try {
    const project = await loadProject(dir);
    return { name: 'models', status: 'ok', detail: `${dir}: ${project.models.size} models` };
  } catch (error) {
    return {
      name: 'models',
      status: 'fail',
      detail: `models.dir in ${path ?? 'vwh.config.json'}: ${(error as Error).message}`,
    };
  }
}

async function keyChecks(flags: DoctorFlags, config: SyncConfig, now: number): Promise<Check[]> {
  if (wantsEmbedded(config, flags)) {
    return [
      {
        name: 'key',
        status: 'warn',
        detail:
          'no API key configured: vwh run uses the embedded demo services. Set VWH_API_KEY (or teams in the config) to sync your account.',
      },
    ];
  }
  const baseUrl = flags.baseUrl ?? process.env.VWH_BASE_URL ?? config.baseUrl;
  const keys = config.teams
    ? config.teams.map((t) => ({
        team: t.team,
        baseUrl: t.baseUrl ?? baseUrl,
        source: { env: t.apiKeyEnv, file: t.apiKeyFile },
      }))
    : [{ team: 'default', baseUrl, source: flags.keyFile ? { file: flags.keyFile } : {} }];
  const out: Check[] = [];
  for (const k of keys) {
    const name = `key ${k.team}`;
    let key: string;
    try {
      key = readKey(k.source, `team ${k.team}`);
    } catch (error) {
      out.push({ name, status: 'fail', detail: (error as Error).message });
      continue;
    }
    registerSecret(key);
    if (!k.baseUrl) {
      out.push({
        name,
        status: 'fail',
        detail: 'no API base URL: set VWH_BASE_URL, --base-url or baseUrl in the config.',
      });
      continue;
    }
    try {
      const res = await request(`${k.baseUrl.replace(/\/+$/, '')}${endpoint('listProjects').basePath}/projects`, {
        headers: { 'x-api-key': key },
        headersTimeout: 15_000,
        bodyTimeout: 15_000,
      });
      await res.body.dump();
      if (res.statusCode === 401) {
        out.push({
          name,
          status: 'fail',
          detail: `the API refused key ${maskKey(key)} (401): replace it, or ask an admin to reactivate it.`,
        });
        continue;
      }
      const limit = Number(res.headers['x-ratelimit-limit']);
      const tier = limit >= 350 ? 'premium' : limit > 0 ? 'standard' : 'unknown';
      out.push({
        name,
        status: res.statusCode < 400 ? 'ok' : 'fail',
        detail: `${maskKey(key)}: HTTP ${res.statusCode}, tier ${tier} (${limit || '?'} requests per window)`,
      });
      const date = Date.parse(String(res.headers.date ?? ''));
      if (!Number.isNaN(date)) {
        const apiDay = msToDay(date);
        const localDay = msToDay(now);
        out.push({
          name: `clock ${k.team}`,
          status: apiDay === localDay ? 'ok' : 'warn',
          detail:
            apiDay === localDay
              ? `API day ${apiDay} = local day`
              : `the API's day is ${apiDay}, the local clock says ${localDay}: check the machine's clock (or pass --today)`,
        });
      }
    } catch (error) {
      out.push({ name, status: 'fail', detail: `${k.baseUrl} unreachable: ${(error as Error).message}` });
    }
  }
  return out;
}

async function warehouseCheck(db: string, now: number, staleAfterMs: number | undefined): Promise<Check> {
  const live = runInProgress(db, now, staleAfterMs);
  if (live) {
    // A normal night: the run holds the warehouse until it ends; nothing to fix.
    return {
      name: 'warehouse',
      status: 'ok',
      detail: `${db}: a run is in progress (${describeHolder(live)}); it holds the warehouse until it ends, and the readers (query, report, status, export) answer from the published copy meanwhile.`,
    };
  }
  const lock = lockPathFor(db);
  const holder = existsSync(lock) ? readHolder(lock) : undefined;
  const lockNote = holder ? ` Run lock: ${describeHolder(holder)} (stale: the next run takes it over).` : '';
  if (!existsSync(db)) {
    const nearest = existingFolder(dirname(db));
    try {
      accessSync(nearest, constants.W_OK);
    } catch {
      return { name: 'warehouse', status: 'fail', detail: `cannot create ${db}: ${nearest} is not writable.` };
    }
    const near = nearbyWarehouses(db);
    return {
      name: 'warehouse',
      status: 'warn',
      detail:
        `${db} does not exist: the next vwh run creates a new warehouse there and syncs its whole history.` +
        (near.length
          ? ` Warehouses nearby: ${near.join(', ')}; if you meant one, fix --db (or "db" in the config).`
          : ' Fine before the first run; otherwise check --db (or "db" in the config).') +
        lockNote,
    };
  }
  try {
    const database = await Database.open(db);
    database.close();
    return { name: 'warehouse', status: 'ok', detail: `${db} opens for writing.${lockNote}` };
  } catch (error) {
    const message = isVwhError(error) ? error.message : String(error);
    // a damaged file is not a held one: its message says what to restore (warehouse/duckdb.ts, damagedFileError)
    const fix =
      isVwhError(error) && error.details.damaged
        ? ''
        : ' Close the BI tool or process holding it (BI tools belong on the published copy).';
    return {
      name: 'warehouse',
      status: 'fail',
      detail: `${db} cannot be opened for writing: ${message}${lockNote}${fix}`,
    };
  }
}

/** Below this much free space on a file system an output lives on, doctor fails (docs/operations.md). */
export const DISK_FLOOR_BYTES = 1024 ** 3;

/** A folder (or the nearest existing folder of it) of every output of a run, with what it is and what it needs. */
function outputsOf(db: string, config: SyncConfig): { what: string; dir: string; need: number }[] {
  const size = statSync(db, { throwIfNoEntry: false })?.size ?? 0;
  const exports = exportsOf(db, config);
  const published = publishPathOf(db, config);
  const outputs = [
    // the models rebuild a table beside the old one, and DuckDB spills and checkpoints beside the file
    { what: 'the warehouse', dir: dirname(db), need: 2 * size },
    ...(published ? [{ what: 'the published copy', dir: dirname(published), need: size }] : []),
    ...(exports.parquet ? [{ what: 'the lake', dir: exports.parquet.outDir, need: 0 }] : []),
    ...(exports.arrow ? [{ what: 'the Arrow files', dir: exports.arrow.outDir, need: 0 }] : []),
    ...(exports.html ? [{ what: 'the HTML report', dir: dirname(exports.html.out), need: 0 }] : []),
    { what: 'the models artifacts', dir: defaultTargetDir(db), need: 0 },
    { what: 'the events journal', dir: journalDirOf(db, config), need: 0 },
  ];
  return outputs.map((o) => ({ ...o, dir: existingFolder(o.dir) }));
}

function existingFolder(path: string): string {
  let dir = resolve(path);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/**
 * Free space on every file system an output of the run lives on (the warehouse, the published copy, the exports,
 * the artifacts, the journal), each against what its outputs need: the warehouse twice its size, the published copy
 * once, never less than DISK_FLOOR_BYTES. Below that is a FAIL: the run would stop half-way with the disk full.
 */
function diskChecks(db: string, config: SyncConfig): Check[] {
  const byDevice = new Map<number, { dir: string; whats: string[]; need: number }>();
  for (const o of outputsOf(db, config)) {
    const device = statSync(o.dir).dev;
    const entry = byDevice.get(device) ?? { dir: o.dir, whats: [], need: 0 };
    if (!entry.whats.includes(o.what)) entry.whats.push(o.what);
    entry.need += o.need;
    byDevice.set(device, entry);
  }
  const gb = (n: number) => `${(n / 1024 ** 3).toFixed(1)} GB`;
  return [...byDevice.values()].map(({ dir, whats, need }) => {
    const fs = statfsSync(dir);
    const free = fs.bavail * fs.bsize;
    const floor = Math.max(DISK_FLOOR_BYTES, need);
    const where = `on the file system of ${dir} (${whats.join(', ')})`;
    return free >= floor
      ? { name: 'disk', status: 'ok', detail: `${gb(free)} free ${where}` }
      : {
          name: 'disk',
          status: 'fail',
          detail:
            `${gb(free)} free ${where}; a run needs at least ${gb(floor)} there (twice the warehouse beside it, once ` +
            `for the published copy, ${gb(DISK_FLOOR_BYTES)} minimum): free space, or move these outputs to another disk.`,
        };
  });
}

async function publishedCheck(path: string | undefined): Promise<Check> {
  if (!path) return { name: 'published', status: 'ok', detail: 'publishing is off (publish.enabled: false)' };
  if (!existsSync(path))
    return {
      name: 'published',
      status: 'warn',
      detail: `${path} does not exist yet: it appears after the first successful vwh run.`,
    };
  try {
    const db = await Database.open(path, { access_mode: 'READ_ONLY' });
    try {
      const last = await db.session.scalar<string | null>(
        "select strftime(max(started_at), '%Y-%m-%dT%H:%M:%SZ') from ops.pipeline_runs where stage = 'run'",
      );
      return {
        name: 'published',
        status: 'ok',
        detail: `${path} opens read-only; its newest run started ${last ?? 'never'}`,
      };
    } finally {
      db.close();
    }
  } catch (error) {
    return {
      name: 'published',
      status: 'fail',
      detail: `${path} does not open: ${(error as Error).message}. The next successful vwh run replaces it.`,
    };
  }
}

/**
 * DuckDB's own checksum pass: it verifies a block's checksum when it reads the block, and has no separate integrity
 * check, so every column of every table is read (hashed, so that no column is optimized away). A damaged file fails
 * naming the first table with a bad block and how to restore the file.
 */
async function deepCheck(what: 'warehouse' | 'published', path: string): Promise<Check> {
  const name = `deep ${what}`;
  if (!existsSync(path)) return { name, status: 'ok', detail: `${path} does not exist yet: nothing to read.` };
  let db: Database;
  try {
    db = await Database.open(path, { access_mode: 'READ_ONLY' });
  } catch (error) {
    if (isVwhError(error) && error.code === 'DB_LOCKED') {
      return { name, status: 'warn', detail: `${path} is held by a writer: run vwh doctor --deep when it is free.` };
    }
    return { name, status: 'fail', detail: (error as Error).message };
  }
  try {
    const tables = await db.session.all<{ schema_name: string; table_name: string }>(
      'select schema_name, table_name from duckdb_tables() where not internal and not temporary order by all',
    );
    let read = 0;
    for (const t of tables) {
      const table = `${quoteIdent(t.schema_name)}.${quoteIdent(t.table_name)}`;
      try {
        await db.session.all(`select count(*), bit_xor(hash(columns(*))) from ${table}`);
        read += 1;
      } catch (error) {
        const damage = isDamage(error) ? damagedFileError(path, error).message : (error as Error).message;
        return { name, status: 'fail', detail: `${t.schema_name}.${t.table_name}: ${damage}` };
      }
    }
    return {
      name,
      status: 'ok',
      detail: `${path}: every block of its ${read} tables read, every checksum matches`,
    };
  } finally {
    db.close();
  }
}

export function formatChecks(checks: readonly Check[]): string {
  return `${checks.map((c) => `${c.status.toUpperCase().padEnd(4)} ${c.name.padEnd(14)} ${c.detail}`).join('\n')}\n`;
}
