/**
 * Projects: the `ProjectConfig` the world reads, plus what only the server keeps (bootstrap status, action texts,
 * recorded URLs). A write replaces `config` with a new object, so a world cache keyed on the snapshot never goes stale.
 */
import type { BootstrapStatus } from '../../api/index.js';
import type { ActionConfig, ActionStatus, ProjectConfig, PromptType } from '../world/types.js';

export interface ActionDetails {
  priority: 'critical' | 'high' | 'medium' | 'low';
  title: string;
  description: string;
  effort: 'quick-win' | 'moderate' | 'major' | null;
  execution: { type: string; prompt: string | null; skill: string | null; params: Record<string, unknown> | null };
  group: string | null;
  depends_on: string[];
  created_at: string;
  updated_at: string;
  status_history: Array<{ status: ActionStatus; at: string }>;
}

export interface RecordedUrl {
  id: string;
  url: string;
  normalized_url: string;
  title: string;
  icon_urls: string[];
  created_at: string;
}

export interface BootstrapState {
  /** The phased status of the bootstrap service; POST /account/projects goes initializing → completed | error. */
  status: BootstrapStatus;
  /** Where the `project.bootstrap` callback goes (POST /account/projects only). */
  webhook_url: string | null;
  error: string | null;
  failed_phase: 'initialize' | 'prompt' | 'analysis' | 'complete' | null;
  updated_at: string;
  /** Delivery attempts of the `project.bootstrap` callback (extension, for tests). */
  callback_attempts: number;
  callback_delivered: boolean;
}

export interface ProjectRecord {
  config: ProjectConfig;
  bootstrap: BootstrapState | null;
  actionDetails: Map<string, ActionDetails>;
  recorded: RecordedUrl[];
  /** Prompts generated per suggested-generation call when `count` is omitted (decided: 5). */
  batchSize: number;
}

export function currentPromptType(prompt: ProjectConfig['prompts'][number]): PromptType {
  return prompt.type_history[prompt.type_history.length - 1]?.prompt_type ?? 'active';
}

export class Projects {
  private readonly byId = new Map<string, ProjectRecord>();

  add(config: ProjectConfig, extra: Partial<Omit<ProjectRecord, 'config'>> = {}): ProjectRecord {
    const record: ProjectRecord = {
      config,
      bootstrap: extra.bootstrap ?? null,
      actionDetails: extra.actionDetails ?? new Map(),
      recorded: extra.recorded ?? [],
      batchSize: extra.batchSize ?? 5,
    };
    this.byId.set(config.id, record);
    return record;
  }

  get(id: string): ProjectRecord | undefined {
    return this.byId.get(id);
  }

  /** A team's projects, oldest first. */
  ofTeam(teamId: string): ProjectRecord[] {
    return [...this.byId.values()]
      .filter((p) => p.config.team_id === teamId)
      .sort((a, b) => a.config.created_at.localeCompare(b.config.created_at));
  }

  all(): ProjectRecord[] {
    return [...this.byId.values()];
  }

  /** Replaces the config by `fn(config)`; `fn` returns a new object (never mutates the old snapshot). */
  update(record: ProjectRecord, fn: (config: ProjectConfig) => ProjectConfig): ProjectConfig {
    record.config = fn(record.config);
    return record.config;
  }
}

export function replaceAction(config: ProjectConfig, action: ActionConfig): ProjectConfig {
  return { ...config, actions: config.actions.map((a) => (a.id === action.id ? action : a)) };
}
