/**
 * Competitors. List, pending list, review, update and delete are envelope A, snake_case; competitor create is
 * envelope B, camelCase (Conventions 2 and 3).
 */
import * as z from 'zod';
import { resource, Uuid } from './common.js';

export const COMPETITOR_STATES = ['active', 'pending', 'inactive'] as const;
export const CompetitorState = z.enum(COMPETITOR_STATES);
export type CompetitorState = z.infer<typeof CompetitorState>;

export const CompetitorMetrics = resource({
  visibility: z.number().nullable(),
  sentiment: z.number().nullable(),
  position: z.number().nullable(),
  mention_count: z.int().nullable(),
  days_with_data: z.int().nullable(),
  period: z.string().describe("'YYYY-MM-DD to YYYY-MM-DD'"),
});
export type CompetitorMetrics = z.infer<typeof CompetitorMetrics>;

export const Competitor = resource({
  competitor_id: Uuid.describe('all-zero UUID for the injected own brand'),
  project_id: Uuid,
  name: z.string(),
  website: z.string(),
  icon_url: z.string().nullable(),
  icon_urls: z.array(z.string()),
  state: CompetitorState.nullable(),
  is_own_brand: z.boolean(),
  metrics: CompetitorMetrics.nullable().describe('null for pending competitors'),
});
export type Competitor = z.infer<typeof Competitor>;

export const ActiveCompetitors = resource({
  active_competitors: z.array(Competitor),
  total_active: z.int(),
});
export type ActiveCompetitors = z.infer<typeof ActiveCompetitors>;

export const PendingCompetitors = resource({
  pending_competitors: z.array(Competitor),
  total_pending: z.int(),
});
export type PendingCompetitors = z.infer<typeof PendingCompetitors>;

export const CompetitorStateBody = z.strictObject({
  state: z.enum(['active', 'inactive'], { error: "state must be 'active' or 'inactive'" }),
});
export type CompetitorStateBody = z.input<typeof CompetitorStateBody>;

/** "updated state": decided as the competitor's id, project and new state. */
export const CompetitorStateResult = resource({
  competitor_id: Uuid,
  project_id: Uuid,
  state: CompetitorState,
});
export type CompetitorStateResult = z.infer<typeof CompetitorStateResult>;

const nonBlank = z.string().refine((text) => text.trim().length > 0, 'must not be blank');

export const CompetitorInput = z.strictObject({
  name: nonBlank,
  website: nonBlank.describe('a domain or a full URL'),
});
export const CompetitorCreateBody = z.strictObject({
  competitors: z.array(CompetitorInput).min(1).max(20),
});
export type CompetitorCreateBody = z.input<typeof CompetitorCreateBody>;

export const CompetitorMetricsCamel = resource({
  visibility: z.number().nullable(),
  sentiment: z.number().nullable(),
  position: z.number().nullable(),
  mentionCount: z.int().nullable(),
  daysWithData: z.int().nullable(),
  period: z.string(),
});

export const CompetitorCreateItem = resource({
  competitorId: Uuid,
  projectId: Uuid,
  name: z.string(),
  website: z.string().describe('normalized to a full URL'),
  iconUrl: z.string().nullable(),
  iconUrls: z.array(z.string()),
  state: CompetitorState.nullable(),
  isOwnBrand: z.boolean(),
  metrics: CompetitorMetricsCamel.nullable(),
});
export type CompetitorCreateItem = z.infer<typeof CompetitorCreateItem>;

export const CompetitorCreateResult = resource({
  projectId: Uuid,
  created: z.int(),
  competitors: z.array(CompetitorCreateItem),
});
export type CompetitorCreateResult = z.infer<typeof CompetitorCreateResult>;

export const CompetitorUpdateBody = z.strictObject({
  name: nonBlank.optional(),
  website: nonBlank.optional(),
});
export type CompetitorUpdateBody = z.input<typeof CompetitorUpdateBody>;

/** DELETE response body: not shown by the spec; decided like the webhook delete, `{competitor_id, message}`. */
export const CompetitorDeleteResult = resource({
  competitor_id: Uuid,
  message: z.string(),
});
export type CompetitorDeleteResult = z.infer<typeof CompetitorDeleteResult>;

export const CompetitorParams = z.object({ project_id: Uuid, competitor_id: Uuid });
