/**
 * `vwh doctor`: checks what a nightly run needs and says what to fix: the config, each key (one request: valid?
 * which tier? the API's day against the local clock), the warehouse (writable, or who holds it), the run lock, the
 * free disk space, and the published copy.
 */
import { accessSync, constants, existsSync, statfsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { request } from 'undici';
import { endpoint } from '../api/catalogue.js';
import { loadConfig, readKey, type SyncConfig } from '../core/config.js';
import { msToDay } from '../core/days.js';
import { isVwhError, maskKey, registerSecret } from '../core/errors.js';
import { readHolder } from '../core/lock-file.js';
import { Database } from '../warehouse/duckdb.js';
import { wantsEmbedded } from './embedded.js';
import { describeHolder, lockPathFor, runInProgress, staleLockMs } from './lock.js';
import { dbPathOf, nearbyWarehouses, publishPathOf } from './paths.js';

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
}

export async function doctor(flags: DoctorFlags, now: number = Date.now()): Promise<Check[]> {
  const checks: Check[] = [];
  let config: SyncConfig;
  try {
    config = loadConfig(flags.config);
    checks.push({ name: 'config', status: 'ok', detail: flags.config ?? 'vwh.config.json (or none: the defaults)' });
  } catch (error) {
    checks.push({ name: 'config', status: 'fail', detail: (error as Error).message });
    return checks;
  }
  checks.push(...(await keyChecks(flags, config, now)));
  const db = dbPathOf(flags, config);
  checks.push(await warehouseCheck(db, now, staleLockMs(config)));
  checks.push(diskCheck(db));
  checks.push(await publishedCheck(publishPathOf(db, config)));
  return checks;
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
    const folder = dirname(db);
    let nearest = folder;
    while (!existsSync(nearest) && dirname(nearest) !== nearest) nearest = dirname(nearest);
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
    return {
      name: 'warehouse',
      status: 'fail',
      detail: `${db} cannot be opened for writing: ${message}${lockNote} Close the BI tool or process holding it (BI tools belong on the published copy).`,
    };
  }
}

function diskCheck(db: string): Check {
  const dir = existsSync(dirname(db)) ? dirname(db) : '.';
  const fs = statfsSync(dir);
  const free = fs.bavail * fs.bsize;
  const size = existsSync(db) ? statSync(db).size : 0;
  // A run may need the warehouse twice over: the published copy and the models' rebuilt tables.
  const need = Math.max(1024 ** 3, 3 * size);
  const gb = (n: number) => `${(n / 1024 ** 3).toFixed(1)} GB`;
  return free >= need
    ? { name: 'disk', status: 'ok', detail: `${gb(free)} free in ${dir}` }
    : {
        name: 'disk',
        status: 'warn',
        detail: `${gb(free)} free in ${dir}; keep at least ${gb(need)} (3× the warehouse, 1 GB minimum)`,
      };
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

export function formatChecks(checks: readonly Check[]): string {
  return `${checks.map((c) => `${c.status.toUpperCase().padEnd(4)} ${c.name.padEnd(14)} ${c.detail}`).join('\n')}\n`;
}
