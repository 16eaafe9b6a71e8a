import { createHash } from 'node:crypto';
import type { ModelConfig } from './types.js';

/**
 * What decides whether a model (or a singular test) changed: its SQL (whitespace-normalised) and the configuration
 * that affects what it builds (a test's severity and threshold). Descriptions, grain, column docs and tags are
 * documentation and do not count, nor does `batch_rows` (how many transactions build the same rows; left out of the
 * hash so that models built before it existed keep their fingerprints).
 */
export function fingerprint(sql: string, config: ModelConfig | { severity: string; threshold: number }): string {
  const { description: _d, grain: _g, columns: _c, tags: _t, batchRows: _b, ...rest } = config as Partial<ModelConfig>;
  const normalised = sql.replace(/\s+/g, ' ').trim();
  return createHash('sha256')
    .update(JSON.stringify({ sql: normalised, config: rest }))
    .digest('hex')
    .slice(0, 16);
}
