/** Actions (recommendations): list, get, create, enrich. Envelope A, snake_case. */
import * as z from 'zod';
import { resource, Timestamp, Uuid } from './common.js';

export const ACTION_PRIORITIES = ['critical', 'high', 'medium', 'low'] as const;
export const ACTION_CATEGORIES = ['on_page_seo', 'new_content', 'content_update', 'forum_engagement'] as const;
export const ACTION_EFFORTS = ['quick-win', 'moderate', 'major'] as const;
export const ACTION_STATUSES = ['suggested', 'accepted', 'in_progress', 'completed', 'ignored'] as const;
export const TARGET_TYPES = ['url', 'keyword', 'page_type', 'domain'] as const;
export const EXECUTION_TYPES = ['prompt', 'publishable_content', 'forum_reply', 'manual'] as const;

export const ActionPriority = z.enum(ACTION_PRIORITIES);
export const ActionCategory = z.enum(ACTION_CATEGORIES);
export const ActionEffort = z.enum(ACTION_EFFORTS);
export const ActionStatus = z.enum(ACTION_STATUSES);
export type ActionStatus = z.infer<typeof ActionStatus>;

export const ActionTarget = resource({ type: z.enum(TARGET_TYPES), value: z.string() });
export type ActionTarget = z.infer<typeof ActionTarget>;

export const ActionExecution = resource({
  type: z.enum(EXECUTION_TYPES),
  prompt: z.string().nullable(),
  skill: z.string().nullable(),
  params: z.record(z.string(), z.unknown()).nullable(),
});
export type ActionExecution = z.infer<typeof ActionExecution>;

export const Action = resource({
  id: Uuid,
  priority: ActionPriority,
  title: z.string(),
  description: z.string(),
  category: ActionCategory,
  effort: ActionEffort.nullable(),
  expected_impact_min: z.number().nullable().describe('percentage points'),
  expected_impact_max: z.number().nullable().describe('percentage points'),
  status: ActionStatus,
  targets: z.array(ActionTarget),
  execution: ActionExecution,
  group: z.string().nullable(),
  depends_on: z.array(z.string()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Action = z.infer<typeof Action>;
export const ActionList = z.array(Action);

export const ActionListQuery = z.object({
  status: ActionStatus.optional(),
  group: z.string().optional(),
});
export type ActionListQuery = z.output<typeof ActionListQuery>;

export const ActionCreateBody = z.strictObject({
  title: z.string().min(1),
  description: z.string().min(1),
  category: ActionCategory,
  priority: ActionPriority,
  execution: z.strictObject({
    type: z.enum(EXECUTION_TYPES),
    prompt: z.string().nullable().optional(),
    skill: z.string().nullable().optional(),
  }),
  targets: z.array(z.strictObject({ type: z.enum(TARGET_TYPES), value: z.string() })).optional(),
  effort: ActionEffort.optional(),
  expected_impact_min: z.number().optional(),
  expected_impact_max: z.number().optional(),
});
export type ActionCreateBody = z.input<typeof ActionCreateBody>;

export const ActionEnrichBody = z.strictObject({
  action_type: ActionCategory,
  title: z.string().optional(),
  description: z.string().optional(),
  target_url: z.string().optional(),
  keywords: z.array(z.string()).optional(),
  instructions: z.string().optional(),
});
export type ActionEnrichBody = z.input<typeof ActionEnrichBody>;

const enrichFields = {
  title: z.string(),
  description: z.string(),
  targets: z.array(ActionTarget),
  execution: ActionExecution,
  effort: ActionEffort.nullable(),
  expected_impact_min: z.number().nullable(),
  expected_impact_max: z.number().nullable(),
};
/** Enrich response, shape not shown: the reference serves the Action fields of the same names. */
export const ActionEnrichServed = resource(enrichFields);
/** The client's view: every field optional and loosely typed (language-model output). */
export const ActionEnrichResult = resource({
  title: z.string().optional(),
  description: z.string().optional(),
  targets: z.array(z.unknown()).optional(),
  execution: z.unknown().optional(),
  effort: z.string().nullable().optional(),
  expected_impact_min: z.number().nullable().optional(),
  expected_impact_max: z.number().nullable().optional(),
});
export type ActionEnrichResult = z.infer<typeof ActionEnrichResult>;

export const ActionParams = z.object({ project_id: Uuid, action_id: Uuid });
