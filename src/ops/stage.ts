/** What a stage of the nightly job is, what it gets, what it returns, and the exit code of each failed stage. */

import type { Clock } from '../core/clock.js';
import type { SyncConfig } from '../core/config.js';
import { STAGE_EXIT_CODES } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { LakeCatalog } from '../export/lake/catalog.js';
import type { SyncOptions } from '../sync/run.js';
import type { StageStatus, Trigger } from './ledger.js';

export type StageName = 'events' | 'sync' | 'models' | 'exports' | 'publish' | 'alerts';

/** `vwh run` exits with the code of the first stage that failed (the README and docs/operations.md list them). */
export const STAGE_EXIT: Record<StageName, number> = STAGE_EXIT_CODES;
/** The run stopped at a safe point on SIGINT/SIGTERM and is recorded as interrupted (`vwh run` only). */
export { EXIT_INTERRUPTED } from '../core/errors.js';

export interface StageOutcome {
  status: Exclude<StageStatus, 'running'>;
  counts?: Record<string, unknown>;
  error?: string;
  /** For a failed stage: the code the run exits with (3 key refused, 4 locked, 64 config; else the stage's). */
  exitCode?: number;
}

export interface RunContext {
  runId: string;
  trigger: Trigger;
  dbPath: string;
  config: SyncConfig;
  /** Flags handed to the sync (config path, key file, base URL, the embedded server's URL and key...). */
  sync: SyncOptions;
  /** The API's current day when known (the embedded server's simulated day); the models process up to the day before. */
  today?: string;
  modelsDir: string;
  publishPath: string | undefined;
  clock: Clock;
  logger: Logger;
  out: NodeJS.WritableStream;
  stop: AbortSignal;
  /** Outcomes of the stages that ran before, for the stages that report on them (alerts). */
  outcomes: Map<StageName, StageOutcome>;
  /** The run's stages in order (publish names those after it in the published copy). */
  plan: StageName[];
  /** Where the Parquet lake's manifest is kept when not in its folder (a cluster's PostgreSQL). */
  lakeCatalog?: LakeCatalog;
}

export interface Stage {
  name: StageName;
  /** Stages whose failure (or skip) skips this one. */
  needs: StageName[];
  run(ctx: RunContext): Promise<StageOutcome>;
}
