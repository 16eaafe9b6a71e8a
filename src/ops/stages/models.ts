/**
 * Stage `models`: `vwh models build` (models, then their audits) into the warehouse, with the artifacts beside it.
 * A model that fails or an audit of severity error fails the stage, so nothing downstream (exports, the published
 * copy) shows a half-built night; the models runner keeps the previous table of a model that failed.
 */
import { addDays } from '../../core/days.js';
import { createLogger } from '../../core/log.js';
import { buildCatalog } from '../../models/artifacts/catalog.js';
import { dataDictionary } from '../../models/artifacts/docs-markdown.js';
import { buildManifest } from '../../models/artifacts/manifest.js';
import { runResultsJson } from '../../models/artifacts/run-results.js';
import { defaultTargetDir, writeArtifact } from '../../models/artifacts/write.js';
import { loadProject } from '../../models/project.js';
import { runProject } from '../../models/runner.js';
import { Database } from '../../warehouse/duckdb.js';
import { DEFAULT_MEMORY_LIMIT, defaultThreads, duckdbOptions } from '../../warehouse/resources.js';
import { STAGE_EXIT, type Stage, type StageOutcome } from '../stage.js';

export const modelsStage: Stage = {
  name: 'models',
  needs: ['sync'],
  async run(ctx): Promise<StageOutcome> {
    const project = await loadProject(ctx.modelsDir);
    for (const warning of project.warnings) ctx.logger.warn(warning);
    // Bounded as `vwh models build` is: the config's memoryLimit and threads, else its defaults.
    const db = await Database.open(
      ctx.dbPath,
      duckdbOptions({
        memoryLimit: ctx.config.memoryLimit ?? DEFAULT_MEMORY_LIMIT,
        threads: ctx.config.threads ?? defaultThreads(),
      }),
    );
    try {
      const results = await runProject(db, project, {
        command: 'build',
        threads: ctx.config.models?.threads ?? 2,
        end: ctx.today ? addDays(ctx.today, -1) : undefined,
        clock: ctx.clock,
        logger: ctx.logger.format === 'json' ? ctx.logger : createLogger({ level: 'warn' }),
      });
      const target = defaultTargetDir(ctx.dbPath);
      const manifest = buildManifest(project, new Date(ctx.clock.now()));
      writeArtifact(target, 'manifest.json', manifest);
      writeArtifact(target, 'run_results.json', runResultsJson(results));
      const catalog = await buildCatalog(db.session, project);
      writeArtifact(target, 'catalog.json', catalog);
      writeArtifact(target, 'data_dictionary.md', dataDictionary(manifest, catalog));
      const byStatus: Record<string, number> = {};
      for (const r of results.results) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
      const auditsWarned = results.results.flatMap((r) =>
        r.audits.filter((a) => a.status === 'warn').map((a) => a.name),
      );
      const bad = results.results.filter((r) => r.status === 'error' || r.status === 'fail');
      const counts = { ...byStatus, audits_warned: auditsWarned.length, target };
      if (bad.length === 0) return { status: 'succeeded', counts };
      return {
        status: 'failed',
        counts,
        exitCode: STAGE_EXIT.models,
        error: `${bad.map((r) => `${r.id} (${r.status === 'fail' ? 'audit at error' : 'error'})`).join(', ')}; details in ${target}/run_results.json`,
      };
    } finally {
      db.close();
    }
  },
};
