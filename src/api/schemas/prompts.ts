/**
 * Prompts. The list and get views are snake_case with lowercase prompt types; prompt create, prompt update,
 * suggested-prompt generation and URL-recommendation generation are camelCase with capitalized prompt types
 * (`Active`, `Inactive`, `Suggested`, `UrlRecommended`) (Conventions 3).
 */
import * as z from 'zod';
import { Intent, PromptType, resource, Timestamp, Trend, Uuid } from './common.js';

export const Prompt = resource({
  id: Uuid,
  project_id: Uuid,
  content: z.string(),
  prompt_type: PromptType,
  topic_id: Uuid.nullable(),
  country: z.string().nullable(),
  visibility: z.number().nullable().describe('percent 0-100'),
  sentiment: z.int().nullable(),
  position: z.number().nullable().describe('average brand position'),
  volume: z.int().nullable().describe('number of responses collected'),
  cvr: z.number().nullable().describe('content visibility rate'),
  intent: Intent.nullable(),
  trend: Trend.nullable(),
  created_at: Timestamp,
});
export type Prompt = z.infer<typeof Prompt>;

export const PromptList = resource({
  project_id: Uuid,
  total: z.int(),
  prompts: z.array(Prompt),
});
export type PromptList = z.infer<typeof PromptList>;

/**
 * Capitalized prompt type of the camelCase endpoints. `Pending` is not named by the spec; it is accepted in
 * responses because an update that leaves a pending prompt's type alone has to report it somehow.
 */
export const CAMEL_PROMPT_TYPES = ['Active', 'Inactive', 'Suggested', 'UrlRecommended', 'Pending'] as const;
export const CamelPromptType = z.enum(CAMEL_PROMPT_TYPES);
export type CamelPromptType = z.infer<typeof CamelPromptType>;

const toCamel = {
  active: 'Active',
  inactive: 'Inactive',
  suggested: 'Suggested',
  url_recommended: 'UrlRecommended',
  pending: 'Pending',
} as const satisfies Record<PromptType, CamelPromptType>;

export function promptTypeToCamel(type: PromptType): CamelPromptType {
  return toCamel[type];
}
export function promptTypeFromCamel(type: CamelPromptType): PromptType {
  const entry = Object.entries(toCamel).find(([, camel]) => camel === type);
  return entry![0] as PromptType;
}

const promptText = z.string().refine((text) => text.trim().length > 0, 'prompt text must not be blank');

export const PromptCreateBody = z.strictObject({
  prompts: z.array(promptText).min(1).max(50),
  topicId: Uuid,
  country: z.string().optional().describe('ISO country code'),
});
export type PromptCreateBody = z.input<typeof PromptCreateBody>;

export const PromptCreateItem = resource({
  id: Uuid,
  projectId: Uuid,
  content: z.string(),
  promptType: CamelPromptType,
  topicId: Uuid.nullable(),
  country: z.string().nullable(),
  createdAt: Timestamp,
});
export type PromptCreateItem = z.infer<typeof PromptCreateItem>;

export const PromptCreateResult = resource({
  projectId: Uuid,
  created: z.int(),
  prompts: z.array(PromptCreateItem),
});
export type PromptCreateResult = z.infer<typeof PromptCreateResult>;

/** PATCH body: every field optional; an empty body or no actual change is a 400 (checked by the server). */
export const PromptUpdateBody = z.strictObject({
  content: promptText.optional(),
  country: z.string().optional(),
  topicId: Uuid.optional(),
  promptType: z.enum(['Active', 'Inactive', 'Suggested']).optional(),
});
export type PromptUpdateBody = z.input<typeof PromptUpdateBody>;

/** PATCH response: the updated prompt with all fields, camelCase (decision: the list fields, renamed). */
export const PromptCamel = resource({
  id: Uuid,
  projectId: Uuid,
  content: z.string(),
  promptType: CamelPromptType,
  topicId: Uuid.nullable(),
  country: z.string().nullable(),
  visibility: z.number().nullable(),
  sentiment: z.int().nullable(),
  position: z.number().nullable(),
  volume: z.int().nullable(),
  cvr: z.number().nullable(),
  intent: Intent.nullable(),
  trend: Trend.nullable(),
  createdAt: Timestamp,
});
export type PromptCamel = z.infer<typeof PromptCamel>;

export const GENERATION_METHODS = ['keyword_seo_v1'] as const;

export const SuggestPromptsBody = z.strictObject({
  count: z.int().min(1).max(50).optional().describe('default: the project batch size'),
  generationMethod: z.enum(GENERATION_METHODS).optional(),
  idempotencyKey: z.string().min(1).optional().describe('the same value retries safely'),
  functionAnalysis: z.string().optional(),
});
export type SuggestPromptsBody = z.input<typeof SuggestPromptsBody>;

export const SuggestedPromptItem = resource({
  promptId: Uuid,
  content: z.string().describe('empty until generation fills it (about 30-90 s)'),
  promptType: CamelPromptType,
  generationMethod: z.string(),
  createdAt: Timestamp,
});
export type SuggestedPromptItem = z.infer<typeof SuggestedPromptItem>;

export const SuggestPromptsResult = resource({
  projectId: Uuid,
  queuedCount: z.int(),
  createdCount: z.int(),
  totalSuggested: z.int(),
  prompts: z.array(SuggestedPromptItem),
  message: z.string(),
});
export type SuggestPromptsResult = z.infer<typeof SuggestPromptsResult>;

export const UrlRecommendationsBody = z.strictObject({
  urls: z.array(z.string().min(1)).min(1).max(5),
  count: z.int().min(1).max(20).default(5),
});
export type UrlRecommendationsBody = z.input<typeof UrlRecommendationsBody>;

export const UrlRecommendationsResult = resource({
  projectId: Uuid,
  urlsProvided: z.int(),
  dbMatches: z.int(),
  placeholdersCreated: z.int(),
  message: z.string(),
});
export type UrlRecommendationsResult = z.infer<typeof UrlRecommendationsResult>;

export const PromptParams = z.object({ project_id: Uuid, prompt_id: Uuid });
