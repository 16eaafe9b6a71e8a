/**
 * A run of the models as `vwh models build|run|test` and the nightly job's models stage make it: the project loaded
 * (its warnings logged), the warehouse opened within its memory limit and threads, the runner, and the artifacts
 * written to the target folder (manifest.json, run_results.json and the parse cache; with `docs`, catalog.json and
 * data_dictionary.md too). It returns the results; what to print or decide of them is the caller's.
 */
import { join } from 'node:path';
import type { Logger } from '../core/log.js';
import { Database } from '../warehouse/duckdb.js';
import { type DuckDbResources, duckdbOptions } from '../warehouse/resources.js';
import { buildCatalog } from './artifacts/catalog.js';
import { dataDictionary } from './artifacts/docs-markdown.js';
import { buildManifest } from './artifacts/manifest.js';
import { runResultsJson } from './artifacts/run-results.js';
import { writeArtifact } from './artifacts/write.js';
import { PARSE_CACHE_FILE } from './parse-cache.js';
import { loadProject } from './project.js';
import { type RunOptions, type RunResults, runProject } from './runner.js';

export interface ModelsRunOptions {
  /** The warehouse file (it must exist: the caller checks). */
  dbPath: string;
  modelsDir: string;
  /** The artifacts folder, made and proven writable by the caller. */
  target: string;
  /** DuckDB's memory limit and threads. */
  resources: DuckDbResources;
  run: RunOptions;
  /** Also write catalog.json and data_dictionary.md (the nightly job does). */
  docs?: boolean;
  /** Where the project's warnings go (files it ignored). */
  logger: Logger;
}

export async function runModels(options: ModelsRunOptions): Promise<RunResults> {
  const project = await loadProject(options.modelsDir, { parseCache: join(options.target, PARSE_CACHE_FILE) });
  for (const warning of project.warnings) options.logger.warn(warning);
  const db = await Database.open(options.dbPath, duckdbOptions(options.resources));
  try {
    const results = await runProject(db, project, options.run);
    const manifest = buildManifest(project, new Date(options.run.clock.now()));
    writeArtifact(options.target, 'manifest.json', manifest);
    writeArtifact(options.target, 'run_results.json', runResultsJson(results));
    if (options.docs) {
      const catalog = await buildCatalog(db.session, project);
      writeArtifact(options.target, 'catalog.json', catalog);
      writeArtifact(options.target, 'data_dictionary.md', dataDictionary(manifest, catalog));
    }
    return results;
  } finally {
    db.close();
  }
}
