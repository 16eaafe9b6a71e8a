/**
 * The run ledger, ops.pipeline_runs: one row per run and stage, plus the stage `run` for the whole run. The nightly
 * job writes it as each stage starts and ends, each time on a short-lived connection (of the run's one DuckDB
 * instance: see withSharedInstance), because the sync and the models build hold sessions of their own while they
 * work. After each write the newest runs are mirrored to `<warehouse>.runs.json` beside the warehouse: while a run
 * holds the warehouse no other process can open it, and `vwh status` reads the ledger there. The published copy is
 * made before its run ends: its own ledger is closed as the run stood when the copy was made (closeRunInCopy).
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import * as z from 'zod';
import type { OpsDatabase, StageStatus } from '../warehouse/kysely/ops-database.js';
import { Warehouse } from '../warehouse/warehouse.js';
import { ledgerMirrorPath } from './paths.js';

export type Trigger = 'manual' | 'schedule' | 'catch-up';
export type { StageStatus };

export interface LedgerRow {
  runId: string;
  stage: string;
  trigger: Trigger;
  startedAt: Date;
  endedAt: Date | null;
  status: StageStatus;
  durationMs: number | null;
  exitCode: number | null;
  counts: Record<string, unknown> | null;
  error: string | null;
}

/** Opens the warehouse (migrating it), runs `fn` on its ops tables, closes it. */
export async function withOps<T>(dbPath: string, fn: (w: Awaited<ReturnType<Warehouse['session']>>) => Promise<T>) {
  const warehouse = await Warehouse.open(dbPath);
  try {
    const session = await warehouse.session();
    try {
      return await fn(session);
    } finally {
      session.close();
    }
  } finally {
    warehouse.close();
  }
}

/** Runs the ledger mirror keeps (`vwh status --runs` shows at most this many while a run holds the warehouse). */
const MIRRORED_RUNS = 20;

/** A run as `vwh status` shows it and the mirror keeps it (snake_case, stable for monitoring). */
export interface RunRecord {
  run_id: string;
  trigger: string;
  status: string;
  started_at: string;
  ended_at: string | null;
  duration_ms: number | null;
  exit_code: number | null;
  error: string | null;
  stages: Array<{ stage: string; status: string; duration_ms: number | null; error: string | null; counts: unknown }>;
}

export function runRecord(run: LedgerRow & { stages: LedgerRow[] }): RunRecord {
  return {
    run_id: run.runId,
    trigger: run.trigger,
    status: run.status,
    started_at: run.startedAt.toISOString(),
    ended_at: run.endedAt ? run.endedAt.toISOString() : null,
    duration_ms: run.durationMs,
    exit_code: run.exitCode,
    error: run.error,
    stages: run.stages.map((s) => ({
      stage: s.stage,
      status: s.status,
      duration_ms: s.durationMs,
      error: s.error,
      counts: s.counts,
    })),
  };
}

const MirroredRun = z.object({
  run_id: z.string(),
  trigger: z.string(),
  status: z.string(),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  duration_ms: z.number().nullable(),
  exit_code: z.number().nullable(),
  error: z.string().nullable(),
  stages: z.array(
    z.object({
      stage: z.string(),
      status: z.string(),
      duration_ms: z.number().nullable(),
      error: z.string().nullable(),
      counts: z.unknown(),
    }),
  ),
});
const Mirror = z.object({ runs: z.array(MirroredRun) });

/**
 * The mirrored runs, or undefined when there is no mirror (a warehouse never run by this version, or :memory:) or
 * it is not one vwh wrote (damaged, or written over): a copy, so the caller reads the ledger in the published copy
 * instead, and the next ledger write replaces the file.
 */
export function readLedgerMirror(dbPath: string): RunRecord[] | undefined {
  try {
    const parsed = Mirror.safeParse(JSON.parse(readFileSync(ledgerMirrorPath(dbPath), 'utf8')));
    return parsed.success ? parsed.data.runs : undefined;
  } catch {
    return undefined;
  }
}

async function mirrorLedger(ops: Kysely<OpsDatabase>, dbPath: string): Promise<void> {
  if (dbPath.startsWith(':memory:')) return;
  const runs = (await recentRuns(ops, MIRRORED_RUNS)).map(runRecord);
  const path = ledgerMirrorPath(dbPath);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ runs }, null, 1)}\n`);
  renameSync(temp, path);
}

/** Inserts or replaces the row of (run, stage), and mirrors the newest runs beside the warehouse. */
export async function writeLedger(dbPath: string, row: LedgerRow): Promise<void> {
  await withOps(dbPath, async ({ ops }) => {
    await ops.deleteFrom('ops.pipeline_runs').where('run_id', '=', row.runId).where('stage', '=', row.stage).execute();
    await ops
      .insertInto('ops.pipeline_runs')
      .values({
        run_id: row.runId,
        stage: row.stage,
        trigger: row.trigger,
        started_at: row.startedAt,
        ended_at: row.endedAt,
        status: row.status,
        duration_ms: row.durationMs,
        exit_code: row.exitCode,
        counts: row.counts ? JSON.stringify(row.counts) : null,
        error: row.error,
      })
      .execute();
    await mirrorLedger(ops, dbPath);
  });
}

/**
 * Runs still marked `running` were killed (kill -9, power loss) before they recorded their end: the caller holds
 * the run lock, so none of them is alive. They become `interrupted`, stage rows included.
 */
export async function closeAbandonedRuns(dbPath: string, now: Date): Promise<number> {
  return withOps(dbPath, async ({ ops }) => {
    const rows = await ops
      .updateTable('ops.pipeline_runs')
      .set({ status: 'interrupted', ended_at: now, error: 'the process ended before the run recorded its end' })
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(rows.numUpdatedRows ?? 0);
  });
}

/** What the published copy records of the run that made it (see closeRunInCopy). */
export interface CopyRunEnd {
  runId: string;
  /** When the copy was made: the end of its `publish` row and of its `run` row. */
  at: Date;
  /** The run's outcome up to and with the copy (the stages after it cannot change what the copy holds). */
  status: StageStatus;
  exitCode: number;
  /** Every stage of the run: its outcome so far, or AFTER_COPY for those that run after the copy. */
  stages: Record<string, string>;
}

/** The status the published copy's ledger gives the stages that run after it was made (alerts). */
export const AFTER_COPY = 'after this copy';

/**
 * Closes the run in the published copy's ledger (the copy at `copyPath`, before it is renamed into place): the copy
 * is made while its `run` and `publish` rows say `running`, and a monitor reading the copy alone (the BI host) would
 * take them for a killed run. The `publish` row ends succeeded (the copy exists), each stage still to come gets a row
 * `skipped` with the error AFTER_COPY (its outcome is in the warehouse's ledger), and the `run` row gets the run's
 * outcome up to the copy. The copy's ledger is not mirrored: the mirror beside the warehouse is the warehouse's.
 */
export async function closeRunInCopy(copyPath: string, end: CopyRunEnd): Promise<void> {
  await withOps(copyPath, async ({ ops }) => {
    const rows = await ops
      .selectFrom('ops.pipeline_runs')
      .select(['stage', 'started_at', 'trigger'])
      .where('run_id', '=', end.runId)
      .execute();
    const run = rows.find((r) => r.stage === 'run');
    if (!run) return;
    const since = (stage: string) => {
      const started = rows.find((r) => r.stage === stage)?.started_at;
      return started ? end.at.getTime() - new Date(started).getTime() : null;
    };
    await ops
      .updateTable('ops.pipeline_runs')
      .set({ status: 'succeeded', ended_at: end.at, duration_ms: since('publish') })
      .where('run_id', '=', end.runId)
      .where('stage', '=', 'publish')
      .execute();
    const after = Object.entries(end.stages).filter(([, status]) => status === AFTER_COPY);
    for (const [stage] of after) {
      await ops.deleteFrom('ops.pipeline_runs').where('run_id', '=', end.runId).where('stage', '=', stage).execute();
      await ops
        .insertInto('ops.pipeline_runs')
        .values({
          run_id: end.runId,
          stage,
          trigger: run.trigger,
          started_at: end.at,
          ended_at: end.at,
          status: 'skipped',
          duration_ms: null,
          exit_code: null,
          counts: null,
          error: `${AFTER_COPY}: it runs after the published copy is made; its outcome is in the warehouse's ledger`,
        })
        .execute();
    }
    await ops
      .updateTable('ops.pipeline_runs')
      .set({
        status: end.status,
        ended_at: end.at,
        duration_ms: since('run'),
        exit_code: end.exitCode,
        counts: JSON.stringify({ stages: end.stages }),
        error: end.status === 'failed' ? `failed before this copy: ${failedStages(end.stages)}` : null,
      })
      .where('run_id', '=', end.runId)
      .where('stage', '=', 'run')
      .execute();
  });
}

function failedStages(stages: Record<string, string>): string {
  return Object.entries(stages)
    .filter(([, status]) => status === 'failed')
    .map(([stage]) => stage)
    .join(', ');
}

/** The start of the newest run whose status is succeeded or partial (a finished run), or undefined. */
export async function lastFinishedRunStart(dbPath: string): Promise<number | undefined> {
  return withOps(dbPath, async ({ ops }) => {
    const row = await ops
      .selectFrom('ops.pipeline_runs')
      .select((eb) => eb.fn.max('started_at').as('at'))
      .where('stage', '=', 'run')
      .where('status', 'in', ['succeeded', 'partial'])
      .executeTakeFirst();
    const at = row?.at as Date | string | null | undefined;
    return at ? new Date(at).getTime() : undefined;
  });
}

/** The newest `limit` runs, newest first, each with its stages in the order they ran. */
export async function recentRuns(
  ops: Kysely<OpsDatabase>,
  limit: number,
): Promise<Array<LedgerRow & { stages: LedgerRow[] }>> {
  const rows = (
    await ops
      .selectFrom('ops.pipeline_runs')
      .selectAll()
      .where(
        'run_id',
        'in',
        ops
          .selectFrom('ops.pipeline_runs')
          .select('run_id')
          .where('stage', '=', 'run')
          .orderBy('started_at', 'desc')
          .limit(limit),
      )
      .orderBy('started_at', 'asc')
      .execute()
  ).map(fromDb);
  const runs = rows.filter((r) => r.stage === 'run').sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime());
  return runs.map((run) => ({ ...run, stages: rows.filter((r) => r.runId === run.runId && r.stage !== 'run') }));
}

function fromDb(r: {
  run_id: string;
  stage: string;
  trigger: Trigger;
  started_at: Date;
  ended_at: Date | null;
  status: StageStatus;
  duration_ms: number | null;
  exit_code: number | null;
  counts: string | null;
  error: string | null;
}): LedgerRow {
  return {
    runId: r.run_id,
    stage: r.stage,
    trigger: r.trigger,
    startedAt: new Date(r.started_at),
    endedAt: r.ended_at ? new Date(r.ended_at) : null,
    status: r.status,
    durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
    exitCode: r.exit_code,
    counts: typeof r.counts === 'string' ? JSON.parse(r.counts) : (r.counts ?? null),
    error: r.error,
  };
}
