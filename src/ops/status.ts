/**
 * `vwh status`'s report: the last runs and their stages, freshness per stream and project, rows per table, rejected
 * rows and budget of the latest sync per team, and the model nodes that failed (or warned) in the latest build.
 * Read-only; while a run holds the warehouse, the published copy answers (and the report says so). The JSON shape
 * (snake_case keys, arrays sorted) is stable for monitoring.
 */
import { existsSync } from 'node:fs';
import { type Age, DEFAULT_FRESHNESS } from '../core/config.js';
import { isVwhError, VwhError } from '../core/errors.js';
import { Database } from '../warehouse/duckdb.js';
import { opsDb } from '../warehouse/kysely/index.js';
import { Session } from '../warehouse/session.js';
import { type FreshnessRow, type FreshnessStatus, freshness, worstFreshness } from './freshness.js';
import { type LedgerRow, recentRuns } from './ledger.js';

export interface StatusReport {
  generated_at: string;
  source: { path: string; kind: 'warehouse' | 'published'; note: string | null };
  runs: Array<{
    run_id: string;
    trigger: string;
    status: string;
    started_at: string;
    duration_ms: number | null;
    exit_code: number | null;
    stages: Array<{ stage: string; status: string; duration_ms: number | null; error: string | null; counts: unknown }>;
  }>;
  freshness: { status: FreshnessStatus; warn_after: Age; error_after: Age; streams: FreshnessRow[] };
  tables: Array<{ schema: string; table: string; rows: number }>;
  rejected_rows: Array<{ team_id: string; run_id: string; stream: string; rows: number }>;
  budget: Array<{
    team_id: string;
    run_id: string;
    started_at: string;
    status: string;
    requests: number;
    throttled_429: number;
    retries: number;
  }>;
  models_failed: Array<{ node: string; status: string; message: string | null }>;
  /** 0 fresh and the last run finished; 1 stale past error_after or the last run failed. */
  exit_code: number;
}

export interface StatusOptions {
  db: string;
  published?: string | undefined;
  now: number;
  runs?: number;
  warn_after?: Age | undefined;
  error_after?: Age | undefined;
}

/** Opens the warehouse read-only, or the published copy while a writer holds the warehouse. */
async function openForStatus(o: StatusOptions): Promise<{ db: Database; source: StatusReport['source'] }> {
  if (!existsSync(o.db)) {
    throw new VwhError('USAGE', `No warehouse at ${o.db}: run vwh run first, or point --db (or --config) at yours.`);
  }
  try {
    return {
      db: await Database.open(o.db, { access_mode: 'READ_ONLY' }),
      source: { path: o.db, kind: 'warehouse', note: null },
    };
  } catch (error) {
    if (!isVwhError(error) || error.code !== 'DB_LOCKED' || !o.published || !existsSync(o.published)) throw error;
    return {
      db: await Database.open(o.published, { access_mode: 'READ_ONLY' }),
      source: {
        path: o.published,
        kind: 'published',
        note: `${o.db} is held by a writer (a run in progress?); this is the published copy`,
      },
    };
  }
}

export async function statusReport(o: StatusOptions): Promise<StatusReport> {
  const { db, source } = await openForStatus(o);
  const session = await Session.create(await db.connect());
  try {
    const has = async (schema: string, table: string) =>
      (await session.all('select 1 from duckdb_tables() where schema_name = ? and table_name = ?', [schema, table]))
        .length > 0;
    const runs = (await has('ops', 'pipeline_runs')) ? await recentRuns(opsDb(session), o.runs ?? 5) : [];
    const limits = {
      warn_after: o.warn_after ?? DEFAULT_FRESHNESS.warn_after,
      error_after: o.error_after ?? DEFAULT_FRESHNESS.error_after,
    };
    const streams = (await has('ops', 'sync_state')) ? await freshness(session, o.now, limits) : [];
    const tables = await session.all<{ schema: string; table: string }>(
      `select schema_name as "schema", table_name as "table" from duckdb_tables()
        where schema_name in ('raw', 'snapshots', 'marts') order by 1, 2`,
    );
    const counted: StatusReport['tables'] = [];
    for (const t of tables) {
      const rows = await session.all<{ n: number }>(`select count(*)::bigint as n from "${t.schema}"."${t.table}"`);
      counted.push({ ...t, rows: Number(rows[0]?.n ?? 0) });
    }
    const latestSync = `(select team_id, run_id, started_at, status, requests, throttled_429, retries,
                           row_number() over (partition by team_id order by started_at desc) as k from ops.sync_runs) s`;
    const budget = (await has('ops', 'sync_runs'))
      ? await session.all<StatusReport['budget'][number]>(
          `select team_id, run_id, strftime(started_at, '%Y-%m-%dT%H:%M:%SZ') as started_at, status, requests, throttled_429, retries
             from ${latestSync} where k = 1 order by team_id`,
        )
      : [];
    const rejected = (await has('ops', 'rejected_rows'))
      ? await session.all<StatusReport['rejected_rows'][number]>(
          `select r.team_id, r.run_id, r.stream, count(*)::bigint as rows from ops.rejected_rows r
             join ${latestSync} on s.team_id = r.team_id and s.run_id = r.run_id and s.k = 1
            group by all order by 1, 3`,
        )
      : [];
    const modelsFailed = (await has('ops', 'model_runs'))
      ? await session.all<StatusReport['models_failed'][number]>(
          `select node, status, message from ops.model_runs
            where run_id = (select run_id from ops.model_runs order by started_at desc limit 1)
              and status not in ('success', 'pass')
            order by node`,
        )
      : [];
    const worst = worstFreshness(streams);
    const lastRun = runs[0];
    return {
      generated_at: new Date(o.now).toISOString(),
      source,
      runs: runs.map(runJson),
      freshness: { status: worst, ...limits, streams },
      tables: counted,
      rejected_rows: rejected.map((r) => ({ ...r, rows: Number(r.rows) })),
      budget: budget.map((b) => ({
        ...b,
        requests: Number(b.requests),
        throttled_429: Number(b.throttled_429),
        retries: Number(b.retries),
      })),
      models_failed: modelsFailed,
      exit_code: worst === 'error' || lastRun?.status === 'failed' ? 1 : 0,
    };
  } finally {
    session.close();
    db.close();
  }
}

function runJson(run: LedgerRow & { stages: LedgerRow[] }): StatusReport['runs'][number] {
  return {
    run_id: run.runId,
    trigger: run.trigger,
    status: run.status,
    started_at: run.startedAt.toISOString(),
    duration_ms: run.durationMs,
    exit_code: run.exitCode,
    stages: run.stages.map((s) => ({
      stage: s.stage,
      status: s.status,
      duration_ms: s.durationMs,
      error: s.error,
      counts: s.counts,
    })),
  };
}

/** The report for a person: one screen. */
export function formatStatus(r: StatusReport): string {
  const lines: string[] = [];
  if (r.source.note) lines.push(`note: ${r.source.note}`);
  lines.push('Last runs:');
  if (r.runs.length === 0) lines.push('  none yet (vwh run)');
  for (const run of r.runs) {
    lines.push(
      `  ${run.started_at}  ${run.run_id}  ${run.trigger.padEnd(8)} ${run.status.padEnd(11)} ${ms(run.duration_ms)}`,
    );
    for (const s of run.stages) {
      lines.push(
        `      ${s.stage.padEnd(8)} ${s.status.padEnd(11)} ${ms(s.duration_ms).padStart(8)}${s.error ? `  ${s.error.split('\n')[0]}` : ''}`,
      );
    }
  }
  const stale = r.freshness.streams.filter((s) => s.status !== 'pass');
  lines.push(
    '',
    `Freshness: ${r.freshness.status.toUpperCase()} (warn after ${age(r.freshness.warn_after)}, error after ${age(r.freshness.error_after)}; ${r.freshness.streams.length} stream × project pairs)`,
  );
  for (const s of stale.slice(0, 20)) {
    lines.push(
      `  ${s.status.toUpperCase().padEnd(5)} ${s.stream} ${s.project_id}: newest day ${s.newest_day} (${s.age_hours} h old)`,
    );
  }
  if (stale.length > 20) lines.push(`  … ${stale.length - 20} more (vwh status --json)`);
  lines.push('', 'Latest sync per team (budget used):');
  for (const b of r.budget) {
    lines.push(
      `  ${b.team_id}: ${b.status}, ${b.requests} requests, ${b.throttled_429} throttled (429), ${b.retries} retries, at ${b.started_at}`,
    );
  }
  if (r.rejected_rows.length) {
    lines.push('', 'Rejected rows (latest sync):');
    for (const x of r.rejected_rows)
      lines.push(`  ${x.team_id} ${x.stream}: ${x.rows} (ops.rejected_rows where run_id = '${x.run_id}')`);
  }
  lines.push('', `Models not successful in the latest build: ${r.models_failed.length || 'none'}`);
  for (const m of r.models_failed)
    lines.push(`  ${m.status.toUpperCase().padEnd(7)} ${m.node}${m.message ? `: ${m.message.split('\n')[0]}` : ''}`);
  lines.push('', 'Rows per table:');
  for (const t of r.tables) lines.push(`  ${`${t.schema}.${t.table}`.padEnd(44)} ${String(t.rows).padStart(10)}`);
  return `${lines.join('\n')}\n`;
}

function ms(v: number | null): string {
  if (v === null) return '-';
  return v < 1000 ? `${v} ms` : `${(v / 1000).toFixed(1)} s`;
}

function age(a: Age): string {
  return `${a.count} ${a.period}${a.count === 1 ? '' : 's'}`;
}
