import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeFolders } from '../../core/folders.js';

/** Where artifacts go for the default warehouse (`data/warehouse.duckdb`); gitignored. */
export const DEFAULT_TARGET_DIR = 'data/target';

/**
 * The target folder when `--target-dir` is not given: `target/` beside the warehouse file, so `--db` in another
 * folder keeps its manifest and run results with it (and `data/warehouse.duckdb` gives `data/target`).
 */
export function defaultTargetDir(dbPath: string): string {
  return dbPath.startsWith(':memory:') ? DEFAULT_TARGET_DIR : join(dirname(dbPath), 'target');
}

/** Writes one artifact into the target folder and returns its path. */
export function writeArtifact(targetDir: string, name: string, content: unknown): string {
  makeFolders(targetDir);
  const file = join(targetDir, name);
  writeFileSync(file, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
  return file;
}
