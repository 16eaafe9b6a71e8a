/**
 * The seam between the reference server's mutable state (src/reference/state, owned by the server) and the
 * simulated world (src/reference/world, pure functions). The server hands the world a snapshot of a project's
 * configuration; the world generates answers and computes every aggregate from them.
 *
 * Wire shapes (ChatItem, DomainItem, ...) are those of shared/spec/public-data-api.md, snake_case, and are
 * validated by the contract schemas in src/api/.
 */

import type { DayRange } from '../../core/days.js';

export type PromptType = 'active' | 'suggested' | 'pending' | 'inactive' | 'url_recommended';
export type Intent = 'informational' | 'commercial' | 'navigational' | 'transactional';
export type MatchType = 'fuzzy' | 'exact';
export type CompetitorState = 'active' | 'pending' | 'inactive';
export type ActionStatus = 'suggested' | 'accepted' | 'in_progress' | 'completed' | 'ignored';
export type ActionCategory = 'on_page_seo' | 'new_content' | 'content_update' | 'forum_engagement';

/** `YYYY-MM-DD` (UTC day). */
export type Day = string;
/** ISO 8601 timestamp. */
export type Iso = string;

export interface AliasConfig {
  name: string;
  match_type: MatchType;
  created_at: Iso;
}

export interface CompetitorConfig {
  id: string;
  name: string;
  website: string;
  state: CompetitorState;
  created_at: Iso;
  /** Set when the competitor was deleted (DELETE is permanent); the world ignores it from then on. */
  deleted_at: Iso | null;
  /**
   * Added by the world (optional): when the competitor last became `active` (PATCH state pending -> active).
   * Detection tracks an active competitor from the UTC day of `activated_at ?? created_at`.
   */
  activated_at?: Iso | null;
}

export interface TopicConfig {
  id: string;
  name: string;
}

export interface PromptConfig {
  id: string;
  content: string;
  topic_id: string | null;
  country: string | null;
  intent: Intent | null;
  created_at: Iso;
  /** Type changes, oldest first; the first entry's `from` is the creation time. Answers exist on days the type is `active`. */
  type_history: Array<{ from: Iso; prompt_type: PromptType }>;
  /**
   * Added by the world (optional): when the bootstrap that generated this prompt completed. The prompt then also has
   * answers on the day of its `created_at` (the bootstrap's initial answers), collected between `created_at` and this
   * instant and visible from it. Set once; never for a prompt created any other way.
   */
  bootstrapped_at?: Iso | null;
}

export interface ActionTarget {
  type: 'url' | 'keyword' | 'page_type' | 'domain';
  value: string;
}

export interface ActionConfig {
  id: string;
  category: ActionCategory;
  status: ActionStatus;
  targets: ActionTarget[];
  expected_impact_min: number | null;
  expected_impact_max: number | null;
  /** When the action reached `completed` (null otherwise). Its effect on brand strength starts then. */
  completed_at: Iso | null;
  /** Added by the world (optional): display fields the demo team fills; the world itself never reads them. */
  title?: string;
  description?: string;
  priority?: 'critical' | 'high' | 'medium' | 'low';
  effort?: 'quick-win' | 'moderate' | 'major' | null;
  created_at?: Iso;
  updated_at?: Iso;
}

export interface ProjectConfig {
  id: string;
  team_id: string;
  name: string;
  brand_name: string | null;
  website_url: string | null;
  location: string | null;
  language: string | null;
  created_at: Iso;
  aliases: AliasConfig[];
  competitors: CompetitorConfig[];
  topics: TopicConfig[];
  prompts: PromptConfig[];
  actions: ActionConfig[];
  /**
   * Extension for estimator tests: planted changes of the own brand's mention probability on every prompt from `at`
   * (ramped over ACTION_RAMP_DAYS like an action's effect), `impact_pp` points; no API shows them, the truth has them.
   */
  own_shifts?: OwnShift[];
}

export interface OwnShift {
  at: Iso;
  impact_pp: number;
}

export interface WorldQuery {
  /** Resolved by the server (explicit dates win over duration_days); both ends inclusive. */
  range: DayRange;
  /** Provider ids to keep; undefined = all. */
  providers?: string[];
  /** The simulated now (ms since epoch). Answers of a day exist only once that day has ended (late ones a day later). */
  now: number;
}

export interface ProviderInfo {
  id: string;
  name: string;
  model: string;
}
