/** Stage `sync`: the sync as `vwh sync` runs it (config, keys, budgets), its counts those the sync returns. */
import { ExitCode, isVwhError } from '../../core/errors.js';
import { userLine } from '../../core/log.js';
import { runSync, syncProblems } from '../../sync/run.js';
import { STAGE_EXIT, type Stage, type StageOutcome } from '../stage.js';

export const syncStage: Stage = {
  name: 'sync',
  needs: [],
  async run(ctx): Promise<StageOutcome> {
    let outcome: Awaited<ReturnType<typeof runSync>>;
    try {
      // the run's summary lists the rows landed per table: the sync's own end says how many, once
      outcome = await runSync(
        { ...ctx.sync, db: ctx.dbPath, rowsPerTable: false },
        { out: ctx.out, stop: ctx.stop, runId: ctx.runId },
      );
    } catch (error) {
      if (!isVwhError(error)) throw error;
      return { status: 'failed', error: `${error.message} [${error.code}]`, exitCode: error.exitCode };
    }
    for (const line of syncProblems(outcome)) process.stderr.write(userLine(line, ctx.logger.format));
    const code = outcome.exitCode;
    const counts = { ...outcome.counts };
    if (ctx.stop.aborted) return { status: 'interrupted', counts };
    if (code === ExitCode.ok) return { status: 'succeeded', counts };
    if (code === ExitCode.partial) return { status: 'partial', counts, error: 'rows rejected or projects skipped' };
    const exitCode = code === ExitCode.auth || code === ExitCode.dbLocked ? code : STAGE_EXIT.sync;
    return { status: 'failed', counts, exitCode, error: `vwh sync exited ${code}; see ops.sync_runs` };
  },
};
