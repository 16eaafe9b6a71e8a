/**
 * Per-prompt analytics (analytics, chats, domains, urls) and the project analytics (overview, visibility trend).
 * Envelope A, snake_case.
 */
import * as z from 'zod';
import {
  BrandInfo,
  BrandMention,
  DateOrTimestamp,
  DateRangeQueryShape,
  Day,
  Intent,
  itemsOf,
  PromptType,
  Provider,
  resource,
  Timestamp,
  Uuid,
} from './common.js';

export const ProviderMetric = resource({ provider: Provider, value: z.number() });
export type ProviderMetric = z.infer<typeof ProviderMetric>;

/** A chart: date `YYYY-MM-DD` → one metric per provider. */
export const DailyChart = z.record(Day, z.array(ProviderMetric));
export type DailyChart = z.infer<typeof DailyChart>;

export const PromptAnalytics = resource({
  prompt_id: Uuid,
  prompt_content: z.string(),
  volume: z.int().nullable(),
  sentiment: z.int().nullable(),
  visibility_chart: DailyChart,
  position_chart: DailyChart,
  sentiment_chart: DailyChart,
});
export type PromptAnalytics = z.infer<typeof PromptAnalytics>;

export const ReferenceItem = resource({
  title: z.string(),
  link: z.string(),
  snippet: z.string(),
  reference_index: z.int(),
});
export type ReferenceItem = z.infer<typeof ReferenceItem>;

export const BrandPresence = resource({ position: z.number(), count: z.int() });
export type BrandPresence = z.infer<typeof BrandPresence>;

/**
 * brand name → `{position, count}`. Brand maps are objects whose every value fits (`catchall`), the same check as
 * `z.record(z.string(), …)` for parsed JSON, for about half the work: a record also runs the key's schema and a
 * numeric-key regex per key, and these two maps come with every answer of every chats page.
 */
export const BrandsMentioned = z.object({}).catchall(BrandPresence);
/** brand name → sentiment score */
export const SentimentByBrands = z.object({}).catchall(z.number());

export const ChatItem = resource({
  id: Uuid,
  date: DateOrTimestamp,
  mentioned: z.boolean(),
  position: z.int().nullable(),
  all_mentions: z.array(BrandMention),
  chat_preview: z.string().describe('first sentence, at most 150 characters'),
  platform: Provider,
  model: z.string(),
  full_content: z.string(),
  prompt_content: z.string(),
  references: z.array(ReferenceItem),
  brands_mentioned: BrandsMentioned.nullable(),
  sentiment: z.int().nullable(),
  sentiment_by_brands: SentimentByBrands.nullable(),
});
export type ChatItem = z.infer<typeof ChatItem>;
export const ChatList = itemsOf(ChatItem);

export const PromptDomainItem = resource({
  domain: z.string(),
  domain_type: z.int().describe('source category id'),
  citation_count: z.int(),
  avg_citations: z.number(),
  used_percentage: z.number(),
  mentioned: z.boolean(),
  brands_appeared: z.array(BrandInfo),
  favicon_url: z.string().nullable(),
  favicon_urls: z.array(z.string()),
});
export type PromptDomainItem = z.infer<typeof PromptDomainItem>;
export const PromptDomainList = itemsOf(PromptDomainItem);

export const PromptUrlItem = resource({
  url: z.string(),
  title: z.string(),
  domain: z.string(),
  url_type: z.int().nullable(),
  url_type_name: z.string(),
  mentioned_count: z.int(),
  brands_appear: z.array(BrandInfo),
  first_seen: Timestamp,
  last_seen: Timestamp,
});
export type PromptUrlItem = z.infer<typeof PromptUrlItem>;
export const PromptUrlList = itemsOf(PromptUrlItem);

export const CompetitorMentioned = resource({
  competitor_id: Uuid,
  name: z.string(),
  mention_count: z.int(),
  icon_url: z.string().nullable(),
  icon_urls: z.array(z.string()),
});
export type CompetitorMentioned = z.infer<typeof CompetitorMentioned>;

export const OverviewItem = resource({
  prompt_id: Uuid,
  content: z.string(),
  prompt_type: PromptType,
  created_at: Timestamp,
  topic_id: Uuid.nullable(),
  topic_name: z.string().nullable(),
  visibility: z.number(),
  sentiment: z.number(),
  position: z.number(),
  volume: z.int().nullable().describe('estimated demand'),
  intent: Intent.nullable(),
  cvr: z.number().nullable(),
  competitors_mentioned: z.array(CompetitorMentioned),
});
export type OverviewItem = z.infer<typeof OverviewItem>;
export const OverviewList = itemsOf(OverviewItem);

export const OVERVIEW_PROMPT_TYPES = ['active', 'suggested'] as const;
/** A bad `prompt_type` fails with the spec's own detail as the issue message. */
export const OverviewQuery = z.object({
  ...DateRangeQueryShape,
  prompt_type: z
    .enum(OVERVIEW_PROMPT_TYPES, { error: "prompt_type must be 'active' or 'suggested'" })
    .default('active'),
});
export type OverviewQuery = z.output<typeof OverviewQuery>;

const alignedSeries = z.array(z.number().nullable()).describe('aligned to dates; null on days without data');

export const TrendSeries = resource({
  competitor_id: Uuid,
  name: z.string(),
  website: z.string(),
  icon_url: z.string().nullable(),
  is_own_brand: z.boolean(),
  visibility: alignedSeries,
  sentiment: alignedSeries,
  position: alignedSeries,
});
export type TrendSeries = z.infer<typeof TrendSeries>;

export const VisibilityTrend = resource({
  dates: z.array(Day),
  period: z.string(),
  series: z.array(TrendSeries),
});
export type VisibilityTrend = z.infer<typeof VisibilityTrend>;
