/**
 * Stage `publish`: the read-only copy BI tools open (see ../publish.ts), after the models built. The copy's own ledger
 * says how the run stood when it was made (closeRunInCopy): a monitor on the BI host reads a finished run.
 */
import { AFTER_COPY, closeRunInCopy } from '../ledger.js';
import { summarize } from '../pipeline.js';
import { publishWarehouse } from '../publish.js';
import type { RunContext, Stage, StageName, StageOutcome } from '../stage.js';

export const publishStage: Stage = {
  name: 'publish',
  needs: ['models'],
  async run(ctx): Promise<StageOutcome> {
    if (!ctx.publishPath) return { status: 'skipped', error: 'publish.enabled is false in the config' };
    const result = await publishWarehouse(ctx.dbPath, ctx.publishPath, (copy) => closeRunInCopy(copy, copyEnd(ctx)));
    return { status: 'succeeded', counts: { path: result.path, bytes: result.bytes, tables: result.tables } };
  },
};

/** The run as the copy records it: the stages before publish as they ended, publish succeeded, the rest to come. */
function copyEnd(ctx: RunContext) {
  const done: Array<{ name: StageName; outcome: StageOutcome }> = [
    ...[...ctx.outcomes].map(([name, outcome]) => ({ name, outcome })),
    { name: 'publish', outcome: { status: 'succeeded' } },
  ];
  const { status, exitCode } = summarize(done);
  const stages: Record<string, string> = {};
  for (const name of ctx.plan) stages[name] = done.find((d) => d.name === name)?.outcome.status ?? AFTER_COPY;
  return { runId: ctx.runId, at: new Date(ctx.clock.now()), status, exitCode, stages };
}
