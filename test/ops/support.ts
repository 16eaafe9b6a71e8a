/** Shared pieces of the nightly-job tests (on test/fixtures.ts): output capture, a temp folder, a tiny embedded world. */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import type { NightlyFlags } from '../../src/ops/nightly.js';
import type { RunContext } from '../../src/ops/stage.js';
import { tempDir as newTempDir, type TempDir } from '../fixtures.js';

export function capture(): { out: PassThrough; text: () => string } {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk) => {
    text += chunk;
  });
  return { out, text: () => text };
}

/** A temporary folder of the nightly-job tests (test/fixtures.ts: removed when the test file ends). */
export const tempDir = (prefix = 'vwh-ops-'): TempDir => newTempDir(prefix);

/** A world small enough for a run of the whole pipeline to stay in seconds (not the demo's seed or size). */
export function tinyWorld(db: string, today: string, extra: Partial<NightlyFlags> = {}): NightlyFlags {
  return {
    db,
    today,
    embedded: true,
    logFormat: 'json',
    rateWindowMs: 200,
    world: { seed: 5, projects: 1, prompts: 2, historyDays: 5 },
    config: writeConfig(db, {}),
    ...extra,
  };
}

export const quiet = silentLogger;

/** vwh.config.json beside the test's warehouse (so the working directory's config is never read). */
export function writeConfig(db: string, config: Record<string, unknown>): string {
  const path = join(dirname(db), 'vwh.config.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
}

/** The context a single stage gets from `vwh run` (no config, the real clock, quiet). */
export function stageContext(db: string, sync: RunContext['sync'] = {}): RunContext {
  return {
    runId: 'r',
    trigger: 'manual',
    dbPath: db,
    config: {},
    sync,
    modelsDir: '.',
    publishPath: undefined,
    clock: systemClock,
    logger: quiet,
    out: capture().out,
    stop: new AbortController().signal,
    outcomes: new Map(),
    plan: [],
  };
}
