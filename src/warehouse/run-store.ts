import type { Kysely } from 'kysely';
import { groupBy } from '../core/group.js';
import type { OpsDatabase, SyncRunsTable } from './kysely/ops-database.js';

export interface RunCounters {
  unitsPlanned: number;
  unitsDone: number;
  requests: number;
  throttled429: number;
  retries: number;
  rowsPerStream: Record<string, number>;
  /** Rows landed per table (`raw.chats` → n): a stream that lands several tables counts each apart. */
  rowsPerTable?: Record<string, number>;
  rejectedRows: number;
}

export interface RejectedRow {
  runId: string;
  teamId: string;
  stream: string;
  parentId: string;
  unitKey: string;
  endpoint: string;
  payload: unknown;
  issues: unknown;
}

/** ops.sync_runs and ops.rejected_rows. Nothing here ever receives the API key. */
export class RunStore {
  constructor(private readonly db: Kysely<OpsDatabase>) {}

  async start(runId: string, teamId: string, baseUrl: string, options: Record<string, unknown>): Promise<void> {
    await this.db
      .insertInto('ops.sync_runs')
      .values({
        run_id: runId,
        team_id: teamId,
        base_url: baseUrl,
        started_at: new Date(),
        ended_at: null,
        status: 'running',
        rows_per_stream: '{}',
        error_code: null,
        error: null,
        options: JSON.stringify(options),
      })
      .execute();
  }

  /**
   * What the run has done so far, written in the transaction of each unit that lands (and once the plan is known):
   * a run killed with -9 then still says how many units, requests and rows it landed.
   */
  async record(runId: string, teamId: string, counters: RunCounters): Promise<void> {
    await this.db
      .updateTable('ops.sync_runs')
      .set(countsOf(counters))
      .where('run_id', '=', runId)
      .where('team_id', '=', teamId)
      .execute();
  }

  async finish(
    runId: string,
    teamId: string,
    status: SyncRunsTable['status'],
    counters: RunCounters,
    error?: { code: string; message: string },
  ): Promise<void> {
    await this.db
      .updateTable('ops.sync_runs')
      .set({
        ended_at: new Date(),
        status,
        ...countsOf(counters),
        error_code: error?.code ?? null,
        error: error?.message ?? null,
      })
      .where('run_id', '=', runId)
      .where('team_id', '=', teamId)
      .execute();
  }

  /** Runs left `running` by a process that died (kill -9) are marked `interrupted` when the next run starts. */
  async markAbandoned(teamId: string): Promise<number> {
    const result = await this.db
      .updateTable('ops.sync_runs')
      .set({ status: 'interrupted', error: 'the process ended before the run finished' })
      .where('team_id', '=', teamId)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /**
   * Per stream, its parents with rows rejected by any run (one query for a sync's plan): their good rows may be
   * landed although the state does not know it (a unit with rejections is not marked finished), so their next units
   * must replace, not append.
   */
  async rejectedParentsByStream(teamId: string): Promise<Map<string, Set<string>>> {
    const rows = await this.db
      .selectFrom('ops.rejected_rows')
      .select(['stream', 'parent_id'])
      .distinct()
      .where('team_id', '=', teamId)
      .execute();
    const byStream = groupBy(
      rows,
      (row) => row.stream,
      (row) => row.parent_id,
    );
    return new Map([...byStream].map(([stream, parents]) => [stream, new Set(parents)]));
  }

  async reject(row: RejectedRow): Promise<void> {
    await this.db
      .insertInto('ops.rejected_rows')
      .values({
        run_id: row.runId,
        team_id: row.teamId,
        stream: row.stream,
        parent_id: row.parentId,
        unit_key: row.unitKey,
        endpoint: row.endpoint,
        payload: row.payload === undefined ? null : JSON.stringify(row.payload),
        issues: JSON.stringify(row.issues ?? []),
        rejected_at: new Date(),
      })
      .execute();
  }
}

function countsOf(counters: RunCounters) {
  return {
    units_planned: counters.unitsPlanned,
    units_done: counters.unitsDone,
    requests: counters.requests,
    throttled_429: counters.throttled429,
    retries: counters.retries,
    rows_per_stream: JSON.stringify(counters.rowsPerStream),
    rejected_rows: counters.rejectedRows,
  };
}
