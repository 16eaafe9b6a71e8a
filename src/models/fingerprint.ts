import { createHash } from 'node:crypto';
import type { ModelConfig } from './types.js';

/**
 * What decides whether a model changed: its SQL (whitespace-normalised) and the configuration that affects what it
 * builds. Descriptions, grain, column docs and tags are documentation and do not count.
 */
export function fingerprint(sql: string, config: ModelConfig): string {
  const { description: _d, grain: _g, columns: _c, tags: _t, ...rest } = config;
  const normalised = sql.replace(/\s+/g, ' ').trim();
  return createHash('sha256')
    .update(JSON.stringify({ sql: normalised, config: rest }))
    .digest('hex')
    .slice(0, 16);
}
