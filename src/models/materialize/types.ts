import type { Clock } from '../../core/clock.js';
import type { DayRange } from '../../core/days.js';
import type { Session } from '../../warehouse/session.js';
import type { AuditOutcome } from '../audits/run.js';
import type { Horizon } from '../horizon.js';
import type { Relations } from '../relations.js';
import type { Model } from '../types.js';

/** A time-range model above another one: the table and its time column. */
export interface TimeRangeRelation {
  schema: string;
  name: string;
  column: string;
}

export interface MaterializeContext {
  model: Model;
  exec: Session;
  /** The warehouse's relations: a materialization records the change it committed to its model's. */
  relations: Relations;
  /** The model's SELECT with ephemeral parents inlined; macros still in place. */
  sql: string;
  runId: string;
  clock: Clock;
  /** Last day (inclusive) incremental models process: the horizon, or an earlier `--end`. */
  end: string;
  /** The warehouse's last complete day (`horizon.ts`): a time-range model holds no day after it. */
  horizon?: Horizon;
  /** `--start`: with it, time-range models reprocess [start, end] even where already done. */
  start?: string;
  fullRefresh: boolean;
  /** Day of the model's last successful build, if any (incremental_by_unique_key's window starts there). */
  lastBuiltOn?: string;
  /** First day remembered from the model's first build (ops.model_state.start_date), if any. */
  rememberedStart?: string | null;
  /** The time-range models above this one (through any kinds): where a first build looks for its first day. */
  timeRangeAncestors?: readonly TimeRangeRelation[];
  /** The tables its query reads (`schema.name`; through views and ephemeral models): what `batch_rows` weighs. */
  inputTables?: readonly string[];
  /** Days time-range models upstream wrote in this run: a time-range model re-processes them (same-day lineage). */
  upstreamDays?: ReadonlySet<string>;
  /** The time-range models below this one (through any kinds): a day it rewrites is restated for each of them. */
  restates?: readonly string[];
  /** Relative export paths resolve from here: the warehouse file's folder. */
  baseDir: string;
  /**
   * Records the model's state (ops.model_state, with the build's first day for a time-range model): a
   * materialization calls it inside the transaction that commits its build, so that both commit together; when it
   * does not (nothing to commit), the runner records the state after it.
   */
  recordState?: (startDate?: string) => Promise<void>;
  /** When auditing: checks a new version before it goes live (kinds that build one under a temporary name). */
  auditNew?: (relation: string) => Promise<AuditOutcome[]>;
}

export interface MaterializeResult {
  /** Rows written; null when nothing is stored (views, ephemeral models). */
  rowsAffected: number | null;
  /** Days processed by a time-range model (empty when nothing was missing). */
  intervals?: DayRange[];
  /** A WHERE condition restricting audits to what was just written (time-range models). */
  auditScope?: string;
  /** First day of a time-range model, to remember in ops.model_state. */
  startDate?: string;
  /** Audits already run on the new version (then the runner does not run them again). */
  audits?: AuditOutcome[];
  message?: string;
}

/** One materialization: turns a model's SELECT into the relation its kind calls for. */
export type Materializer = (ctx: MaterializeContext) => Promise<MaterializeResult>;
