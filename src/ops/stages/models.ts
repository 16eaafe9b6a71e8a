/**
 * Stage `models`: `vwh models build` (models, then their audits) into the warehouse, with the artifacts beside it.
 * A model that fails or an audit of severity error fails the stage, so nothing downstream (exports, the published
 * copy) shows a half-built night; the models runner keeps the previous table of a model that failed.
 */
import { addDays, dayDiff, mergeRanges } from '../../core/days.js';
import { createLogger } from '../../core/log.js';
import { defaultTargetDir } from '../../models/artifacts/write.js';
import { runModels } from '../../models/build.js';
import { formatRanges } from '../../models/intervals.js';
import type { NodeResult } from '../../models/results.js';
import { DEFAULT_MEMORY_LIMIT, defaultThreads } from '../../warehouse/resources.js';
import { STAGE_EXIT, type Stage, type StageOutcome } from '../stage.js';

/**
 * What the build changed: models built and models reused (no input changed, the table kept), and the days the
 * time-range models re-processed (their union), so that a second run the same day says it did nothing new.
 */
export function whatChanged(results: readonly NodeResult[]): Record<string, unknown> {
  const models = results.filter((r) => r.type === 'model' && r.kind !== 'ephemeral');
  const ran = models.filter((r) => r.status !== 'skipped' && r.status !== 'error');
  const ranges = mergeRanges(
    models.flatMap((r) =>
      (r.intervals ?? '')
        .split(', ')
        .filter(Boolean)
        .map((part) => {
          const [from = part, to = from] = part.split('..');
          return { from, to };
        }),
    ),
  );
  return {
    built: ran.filter((r) => !r.reused).length,
    reused: ran.filter((r) => r.reused).length,
    marts_built: ran.filter((r) => !r.reused && r.id.startsWith('marts.')).length,
    days_reprocessed: ranges.reduce((n, r) => n + dayDiff(r.from, r.to) + 1, 0),
    ...(ranges.length ? { days: formatRanges(ranges) } : {}),
  };
}

export const modelsStage: Stage = {
  name: 'models',
  needs: ['sync'],
  async run(ctx): Promise<StageOutcome> {
    const target = defaultTargetDir(ctx.dbPath);
    const results = await runModels({
      dbPath: ctx.dbPath,
      modelsDir: ctx.modelsDir,
      target,
      // Bounded as `vwh models build` is: the config's memoryLimit and threads, else its defaults.
      resources: {
        memoryLimit: ctx.config.memoryLimit ?? DEFAULT_MEMORY_LIMIT,
        threads: ctx.config.threads ?? defaultThreads(),
      },
      run: {
        command: 'build',
        runId: ctx.runId,
        threads: ctx.config.models?.threads ?? 2,
        end: ctx.today ? addDays(ctx.today, -1) : undefined,
        clock: ctx.clock,
        logger: ctx.logger.format === 'json' ? ctx.logger : createLogger({ level: 'warn' }),
      },
      docs: true,
      logger: ctx.logger,
    });
    const byStatus: Record<string, number> = {};
    for (const r of results.results) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    const auditsWarned = results.results.flatMap((r) => r.audits.filter((a) => a.status === 'warn').map((a) => a.name));
    const bad = results.results.filter((r) => r.status === 'error' || r.status === 'fail');
    const counts = {
      ...byStatus,
      ...whatChanged(results.results),
      audits_warned: auditsWarned.length,
      // The last day built: the last complete API day the sync recorded (the run's --today only lowers it).
      horizon: results.horizon.end,
      target,
    };
    if (bad.length === 0) return { status: 'succeeded', counts };
    return {
      status: 'failed',
      counts,
      exitCode: STAGE_EXIT.models,
      error: `${bad.map((r) => `${r.id} (${r.status === 'fail' ? 'audit at error' : 'error'})`).join(', ')}; details in ${target}/run_results.json`,
    };
  },
};
