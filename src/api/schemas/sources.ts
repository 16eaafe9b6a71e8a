/**
 * Sources: the paged domain list, sources analytics, and per-domain detail and chats. Envelope A, snake_case.
 *
 * Detail and chats item fields are "not shown" by the spec. For those, two schemas exist: `*Served` is what the
 * reference serves (and validates before sending); the plain name is what the client parses, every decided field
 * optional, so a real API that names them differently still parses (the sync keeps them as JSON).
 */
import * as z from 'zod';
import { BrandsMentioned, ReferenceItem, SentimentByBrands } from './analytics.js';
import {
  DateOrTimestamp,
  DateRangeQueryShape,
  Day,
  Provider,
  pageQueryShape,
  paginated,
  resource,
  Timestamp,
  Uuid,
} from './common.js';

export const SOURCE_CATEGORIES = ['corporate', 'editorial', 'institutional', 'reference', 'ugc', 'other'] as const;
export type SourceCategoryName = (typeof SOURCE_CATEGORIES)[number];

export const SourceDomain = resource({
  source_id: Uuid,
  domain: z.string(),
  category: z.int().describe('0 corporate, 1 editorial, 2 institutional, 3 reference, 4 ugc, 5 other'),
  reference_count: z.int(),
});
export type SourceDomain = z.infer<typeof SourceDomain>;
export const SourceDomainPage = z.array(SourceDomain);

export const SourcesQuery = z.object({ ...DateRangeQueryShape, ...pageQueryShape(50, 100) });
export const SourceDetailQuery = z.object({ ...DateRangeQueryShape, ...pageQueryShape(20, 100) });
export const SourceChatsQuery = z.object({ ...DateRangeQueryShape, ...pageQueryShape(10, 50) });

export const CategoryBreakdown = resource({
  corporate: z.number(),
  editorial: z.number(),
  institutional: z.number(),
  reference: z.number(),
  ugc: z.number(),
  other: z.number(),
});

export const SourceOpportunity = resource({
  domain: z.string(),
  citation_count: z.int(),
  category: z.int(),
  category_name: z.string(),
});
export type SourceOpportunity = z.infer<typeof SourceOpportunity>;

export const SourcesAnalytics = resource({
  stats: resource({ total_sources: z.int(), total_citations: z.int() }),
  category_breakdown: CategoryBreakdown.describe('percent 0-100'),
  performance_chart: resource({
    dates: z.array(Day),
    series: z.array(resource({ domain: z.string(), values: z.array(z.number()) })),
  }).describe('top 10 domains, daily citation share in percent aligned to dates'),
  top_domains: z.array(SourceDomain).describe('top 20 by citation count'),
  opportunities: z.array(SourceOpportunity).describe('cited 3+ times where the brand is not mentioned'),
});
export type SourcesAnalytics = z.infer<typeof SourcesAnalytics>;

// --- Source detail (items decided) ---

export const SourceDetailStatsServed = resource({
  domain: z.string(),
  category: z.int(),
  category_name: z.string(),
  total_citations: z.int(),
  total_urls: z.int(),
  total_prompts: z.int(),
  citation_share: z.number().describe('percent 0-100 of all citations in the range'),
  brand_mentioned_rate: z.number().describe('percent 0-100 of citing answers that mention the brand'),
});
export const SourceDetailUrlServed = resource({
  url: z.string(),
  title: z.string(),
  citation_count: z.int(),
  first_seen: Timestamp,
  last_seen: Timestamp,
});
export const SourceDetailPromptServed = resource({
  prompt_id: Uuid,
  content: z.string(),
  citation_count: z.int(),
});
export const SourceDetailServed = resource({
  stats: SourceDetailStatsServed,
  urls: paginated(SourceDetailUrlServed),
  prompts: paginated(SourceDetailPromptServed),
});

const loose = z.looseObject({});
export const SourceDetail = resource({
  stats: loose,
  urls: paginated(loose),
  prompts: paginated(loose),
});
export type SourceDetail = z.infer<typeof SourceDetail>;

// --- Source chats (item field names decided) ---

const sourceChatFields = {
  id: Uuid,
  date: DateOrTimestamp,
  provider: Provider,
  model: z.string(),
  prompt_id: Uuid,
  prompt_content: z.string(),
  chat_preview: z.string(),
  full_content: z.string(),
  brands_mentioned: BrandsMentioned.nullable(),
  sentiment_by_brands: SentimentByBrands.nullable(),
  references: z.array(ReferenceItem),
};
export const SourceChatItemServed = resource(sourceChatFields);
export const SourceChatItem = resource(sourceChatFields).partial();
export type SourceChatItem = z.infer<typeof SourceChatItem>;

/** Decided: source chats data is one paginated object with the domain it belongs to. */
export const SourceChatsServed = paginated(SourceChatItemServed).extend({ domain: z.string() });
export const SourceChats = paginated(SourceChatItem).extend({ domain: z.string().optional() });
export type SourceChats = z.infer<typeof SourceChats>;

export const SourceParams = z.object({ project_id: Uuid, domain: z.string().min(1) });
