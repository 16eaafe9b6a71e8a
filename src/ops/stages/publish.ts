/** Stage `publish`: the read-only copy BI tools open (see ../publish.ts), after the models built. */
import { publishWarehouse } from '../publish.js';
import type { Stage, StageOutcome } from '../stage.js';

export const publishStage: Stage = {
  name: 'publish',
  needs: ['models'],
  async run(ctx): Promise<StageOutcome> {
    if (!ctx.publishPath) return { status: 'skipped', error: 'publish.enabled is false in the config' };
    const result = await publishWarehouse(ctx.dbPath, ctx.publishPath);
    return { status: 'succeeded', counts: { path: result.path, bytes: result.bytes, tables: result.tables } };
  },
};
