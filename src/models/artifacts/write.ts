import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const DEFAULT_TARGET_DIR = 'data/target';

/** Writes one artifact into the target folder and returns its path. */
export function writeArtifact(targetDir: string, name: string, content: unknown): string {
  mkdirSync(targetDir, { recursive: true });
  const file = join(targetDir, name);
  writeFileSync(file, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
  return file;
}
