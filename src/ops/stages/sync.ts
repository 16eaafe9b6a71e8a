/** Stage `sync`: `vwh sync` as the command runs it (config, keys, budgets), its counters read from ops.sync_runs. */
import { runSyncCommand } from '../../cli/commands/sync.js';
import { ExitCode, isVwhError } from '../../core/errors.js';
import { withOps } from '../ledger.js';
import { STAGE_EXIT, type Stage, type StageOutcome } from '../stage.js';

export const syncStage: Stage = {
  name: 'sync',
  needs: [],
  async run(ctx): Promise<StageOutcome> {
    const since = new Date();
    let code: number;
    try {
      code = await runSyncCommand({ ...ctx.sync, db: ctx.dbPath }, ctx.out, ctx.stop);
    } catch (error) {
      if (!isVwhError(error)) throw error;
      return { status: 'failed', error: `${error.message} [${error.code}]`, exitCode: error.exitCode };
    }
    const counts = await syncCounts(ctx.dbPath, since);
    if (ctx.stop.aborted) return { status: 'interrupted', counts };
    if (code === ExitCode.ok) return { status: 'succeeded', counts };
    if (code === ExitCode.partial) return { status: 'partial', counts, error: 'rows rejected or projects skipped' };
    const exitCode = code === ExitCode.auth || code === ExitCode.dbLocked ? code : STAGE_EXIT.sync;
    return { status: 'failed', counts, exitCode, error: `vwh sync exited ${code}; see ops.sync_runs` };
  },
};

async function syncCounts(dbPath: string, since: Date): Promise<Record<string, unknown>> {
  return withOps(dbPath, async ({ session }) => {
    const rows = await session.all<{
      teams: number;
      requests: number;
      units: number;
      rejected: number;
      throttled: number;
    }>(
      `select count(*) as teams, coalesce(sum(requests), 0) as requests, coalesce(sum(units_done), 0) as units,
              coalesce(sum(rejected_rows), 0) as rejected, coalesce(sum(throttled_429), 0) as throttled
         from ops.sync_runs where started_at >= ?`,
      [since.toISOString().replace('T', ' ').replace('Z', '')],
    );
    const r = rows[0];
    return {
      teams: Number(r?.teams ?? 0),
      requests: Number(r?.requests ?? 0),
      units: Number(r?.units ?? 0),
      rejected_rows: Number(r?.rejected ?? 0),
      throttled_429: Number(r?.throttled ?? 0),
    };
  });
}
