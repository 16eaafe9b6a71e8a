/**
 * The config as a reader needs it (`db`, `publish.path`), loading its schemas (zod, about 0.15 s of CPU) only when
 * there is a file to check: `vwh query` and `vwh report` without a vwh.config.json load none.
 */
import { existsSync } from 'node:fs';
import type { SyncConfig } from './config.js';

/** loadConfig (config.ts): the file's config, checked; {} when no file is named and ./vwh.config.json is absent. */
export async function loadConfigLazily(path: string | undefined): Promise<SyncConfig> {
  if (path === undefined && !existsSync('vwh.config.json')) return {};
  return (await import('./config.js')).loadConfig(path);
}
