import type { Project, Prompt } from '../api/index.js';
import type { ApiClient, BackoffOptions } from '../client/api-client.js';
import type { Transport } from '../client/transport.js';
import type { Clock } from '../core/clock.js';
import type { DayRange } from '../core/days.js';
import type { VwhError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { TableLoad } from '../warehouse/load-types.js';
import type { RunCounters } from '../warehouse/run-store.js';
import type { Warehouse, WarehouseSession } from '../warehouse/warehouse.js';
import type { ProgressSink, SyncPlan } from './progress.js';

/** The parent a unit of work belongs to: the team, a project, or a prompt. */
export interface Parent {
  /** The key of the parent in ops.sync_state (`team`, a project id, a prompt id). */
  id: string;
  projectId?: string;
  promptId?: string;
  /** First day with data, for day-partitioned streams (decides where a first sync starts). */
  start?: string;
  /** Prompt parents: the prompt's type (active prompts collect answers every day, inactive ones no more). */
  promptType?: string;
}

/**
 * `daily`: rows belong to days; units cover day ranges, state is the days landed, a lookback re-fetches recent days.
 * `snapshot`: the latest state (or an aggregate over the analysis window), taken once per UTC day of the sync.
 */
export type Grain = 'daily' | 'snapshot';

/** A week: each prompt's derivable streams are at most seven nights old, and a seventh of them is asked each night. */
export const DEFAULT_ROTATION_DAYS = 7;

export interface SyncSettings {
  /** The API's current UTC day: day-partitioned streams go up to it (the lookback catches its late answers later). */
  today: string;
  lookbackDays: number;
  /** Largest day range of one request unit. */
  chunkDays: number;
  /** The window of window-grain streams ends on the last day and spans this many days. */
  windowDays: number;
  /** source_details / source_chats: this many top domains per project. */
  topDomains: number;
  /** Page cap per domain for the expensive source streams. */
  maxSourcePages: number;
  since?: string;
  until?: string;
  /**
   * Nights of the rotation: rotated parents of a stream (`StreamDef.rotated`) are refreshed once in this many nights,
   * spread evenly; 1 refreshes them every night.
   */
  rotationDays: number;
}

/** What one key (one team) brings beyond its key: who it is to the services of the second document. */
export interface TeamScope {
  /** The user the team service answers for (`user_id` of GET /api/v2/teams/me); team_members needs it. */
  userId?: string;
}

/** What a stream needs while fetching one unit. */
export interface UnitContext {
  client: ApiClient;
  teamId: string;
  scope: TeamScope;
  settings: SyncSettings;
  /** The window of window-grain streams. */
  window: DayRange;
  ws: WarehouseSession;
  discovery: Discovery;
  logger: Logger;
  signal?: AbortSignal;
}

export interface Rejection {
  endpoint: string;
  payload: unknown;
  issues: unknown;
}

export interface UnitOutput {
  loads: TableLoad[];
  rejected: Rejection[];
}

export interface StreamDef {
  /** Stream name (`--streams`) and its key in ops.sync_state. */
  name: string;
  /** raw tables the stream writes. */
  tables: readonly string[];
  grain: Grain;
  parents(discovery: Discovery, settings: SyncSettings, scope: TeamScope): Parent[];
  /** Why the stream cannot run for this team (shown in the plan as skipped), or undefined when it can. */
  unavailable?(scope: TeamScope): string | undefined;
  /**
   * Whether a parent of this stream is refreshed on the rotation rather than every night: what can be derived from
   * the chats (prompt metrics, domains, URLs; a project's overview, sources and per-domain details and chats), and
   * inactive prompts, which collect no new answers.
   */
  rotated?(parent: Parent): boolean;
  /**
   * Its fetch reads rows that the streams before it land (source_details reads source_top_domains): its units start
   * once those are landed. Every other stream's units follow the previous stream's without waiting.
   */
  readsLanded?: boolean;
  /** Requests one unit is expected to make (for the plan; paged streams guess). */
  estimate(parent: Parent, range: DayRange, settings: SyncSettings): number;
  fetch(ctx: UnitContext, parent: Parent, range: DayRange): Promise<UnitOutput>;
}

export interface Unit {
  stream: StreamDef;
  parent: Parent;
  range: DayRange;
  /** `stream:parent:from..to`. */
  key: string;
  estimate: number;
  /** The state knows none of the unit's days was landed: its rows are appended without a delete. */
  fresh: boolean;
}

export interface ProjectPrompts {
  project: Project;
  prompts: Prompt[];
  /** The list response as parsed (for the prompts stream, which lands it without another request). */
  total: number;
  rejected: Rejection[];
}

/** The team's projects and their prompts: what every stream's parents come from. */
export interface Discovery {
  projects: ProjectPrompts[];
  /** Projects named by `--projects` (or listed) that the key cannot read, with the API's reason. */
  unreachable: Array<{ project: string; reason: string }>;
  /** Items of GET /projects that do not fit the contract: quarantined, the others synced. */
  rejected: Rejection[];
  requests: number;
}

export interface RateOptions {
  /** Sliding window (60 000 ms in the spec; scaled down in tests). */
  windowMs?: number;
  /** Requests per window; default the standard tier (70), corrected by X-RateLimit-Limit. */
  limit?: number;
  /** Part of the window this sync may use (default 1). */
  share?: number;
}

export interface TeamSyncOptions {
  warehouse: Warehouse;
  /** The run's id (default a new UUID); the nightly job hands its own, so one id names the run everywhere. */
  runId?: string;
  teamId: string;
  baseUrl: string;
  apiKey: string;
  /** Base URL of the second document's services (content, teams); default `baseUrl`. */
  servicesBaseUrl?: string;
  /** The team service's caller (team_members); without it that stream is skipped. */
  userId?: string;
  settings: SyncSettings;
  /**
   * `settings.today` is the local UTC date, not a day the user named: the API's day (the `Date` header of its first
   * response) replaces it. Either way the sync never goes past the API's day.
   */
  todayFromApi?: boolean;
  /** Stream names; default all. */
  streams?: readonly string[];
  projects?: readonly string[];
  fullRefresh?: boolean;
  planOnly?: boolean;
  /** Units in flight at once (default 4). */
  concurrency?: number;
  rate?: RateOptions;
  retries?: number;
  backoff?: BackoffOptions;
  timeoutMs?: number;
  /** Longest Retry-After waited for (default 5 min); a longer one fails its unit, which the next run fetches. */
  maxRetryAfterMs?: number;
  /** Largest response body read; a larger one fails its unit (default 64 MiB). */
  maxResponseBytes?: number;
  /** The client's clock (rate window, backoff). Default real time. */
  clock?: Clock;
  /** The client's transport (default undici over HTTP); the benches answer from the reference services in process. */
  transport?: Transport;
  logger: Logger;
  progress: ProgressSink;
  signal?: AbortSignal;
  hooks?: SyncHooks;
  /** JSON progress lines at least this often (default 25 s, under the 30 s a cron log may stay silent). */
  heartbeatMs?: number;
  /** Handed the team's result as soon as it exists, so that a team that throws still leaves its counts. */
  onResult?: (result: TeamResult) => void;
}

export type TeamStatus = 'planned' | 'succeeded' | 'partial' | 'failed' | 'interrupted';

export interface TeamResult {
  teamId: string;
  runId: string | undefined;
  status: TeamStatus;
  plan: SyncPlan | undefined;
  counters: RunCounters;
  rejectedByStream: Record<string, number>;
  unreachable: Array<{ project: string; reason: string }>;
  /** Units that failed, with their error's code when it has one (`API_CONTRACT`: the API broke its contract). */
  failedUnits: Array<{ unit: string; error: string; code?: string }>;
  error?: VwhError;
}

/** Test hooks that simulate a crash: a throw from one ends the run like a kill -9 (see `test-hooks.ts`). */
export interface SyncHooks {
  /** Inside the unit's transaction, after its rows and before its state: a throw rolls the unit back. */
  inTransaction?(unitNumber: number, unit: Unit): void;
  /** After a unit committed. */
  afterUnit?(unitNumber: number, unit: Unit): void;
}
