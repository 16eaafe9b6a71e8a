import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import {
  Action,
  ActiveCompetitors,
  AliasList,
  ChatItem,
  Competitor,
  CompetitorCreateResult,
  endpoint,
  OverviewItem,
  Project,
  Prompt,
  PromptAnalytics,
  PromptDomainItem,
  PromptUrlItem,
  RecordedUrlList,
  SourceDomain,
  SourcesAnalytics,
  VisibilityTrend,
  Webhook,
} from '../../src/api/index.js';
import * as fx from './payloads.js';

const cases: Array<[string, z.ZodType, Record<string, unknown>]> = [
  ['Project', Project, fx.project],
  ['Prompt', Prompt, fx.prompt],
  ['PromptAnalytics', PromptAnalytics, fx.promptAnalytics],
  ['ChatItem', ChatItem, fx.chatItem],
  ['PromptDomainItem', PromptDomainItem, fx.promptDomain],
  ['PromptUrlItem', PromptUrlItem, fx.promptUrl],
  ['Competitor', Competitor, fx.competitor],
  ['CompetitorCreateResult', CompetitorCreateResult, fx.competitorCreateResult],
  ['OverviewItem', OverviewItem, fx.overviewItem],
  ['VisibilityTrend', VisibilityTrend, fx.visibilityTrend],
  ['SourceDomain', SourceDomain, fx.sourceDomain],
  ['SourcesAnalytics', SourcesAnalytics, fx.sourcesAnalytics],
  ['Action', Action, fx.action],
  ['AliasList', AliasList, fx.aliasList],
  ['RecordedUrlList', RecordedUrlList, fx.recordedUrls],
  ['Webhook', Webhook, fx.webhook],
];

describe('resources built from the spec field tables', () => {
  it.each(cases)('%s parses', (_name, schema, example) => {
    expect(schema.parse(example)).toEqual(example);
  });

  it.each(cases)('%s keeps unknown extra fields, also nested', (_name, schema, example) => {
    const parsed = schema.parse({ ...example, added_later: { x: 1 } }) as Record<string, unknown>;
    expect(parsed.added_later).toEqual({ x: 1 });
  });

  it.each(cases)('%s rejects a missing required field', (_name, schema, example) => {
    const [first] = Object.keys(example);
    const { [first!]: _dropped, ...rest } = example;
    expect(schema.safeParse(rest).success).toBe(false);
  });

  it('keeps unknown fields of nested objects (chat references, competitor metrics)', () => {
    const chat = ChatItem.parse({ ...fx.chatItem, references: [{ ...fx.chatItem.references[0], rank: 3 }] });
    expect(chat.references[0]).toHaveProperty('rank', 3);
    const own = Competitor.parse({ ...fx.competitor, metrics: { ...fx.competitor.metrics, share: 1 } });
    expect(own.metrics).toHaveProperty('share', 1);
  });
});

describe('nullable exactly where the spec says', () => {
  it('accepts null in nullable fields', () => {
    expect(Prompt.safeParse({ ...fx.prompt, visibility: null, topic_id: null, intent: null }).success).toBe(true);
    expect(ChatItem.safeParse({ ...fx.chatItem, brands_mentioned: null, sentiment_by_brands: null }).success).toBe(
      true,
    );
    expect(Competitor.safeParse({ ...fx.competitor, metrics: null, state: null }).success).toBe(true);
    expect(Action.safeParse({ ...fx.action, effort: null, group: null }).success).toBe(true);
  });

  it('rejects null in non-nullable fields', () => {
    expect(Prompt.safeParse({ ...fx.prompt, content: null }).success).toBe(false);
    expect(Project.safeParse({ ...fx.project, name: null }).success).toBe(false);
    expect(OverviewItem.safeParse({ ...fx.overviewItem, visibility: null }).success).toBe(false);
    expect(ChatItem.safeParse({ ...fx.chatItem, references: null }).success).toBe(false);
    expect(Action.safeParse({ ...fx.action, targets: null }).success).toBe(false);
  });

  it('accepts the all-zero UUID of the own brand and rejects a non-UUID id', () => {
    expect(Competitor.safeParse({ ...fx.competitor, competitor_id: fx.ids.own }).success).toBe(true);
    expect(Competitor.safeParse({ ...fx.competitor, competitor_id: 'own' }).success).toBe(false);
  });
});

describe('list responses', () => {
  it('parse through their catalogue entries', () => {
    const competitors = { active_competitors: [fx.competitor], total_active: 1 };
    expect(ActiveCompetitors.parse(competitors)).toEqual(competitors);
    expect(endpoint('listSources').response.parse({ success: true, data: [fx.sourceDomain] })).toBeTruthy();
    expect(endpoint('getPromptChats').data.parse({ items: [fx.chatItem] }).items).toHaveLength(1);
  });

  it('the client view of "not shown" shapes is tolerant; the served view is exact', () => {
    const chats = endpoint('getSourceChats');
    const foreign = { page: 1, page_size: 10, total: 1, items: [{ response_text: 'x' }] };
    expect(chats.data.safeParse(foreign).success).toBe(true);
    expect(chats.served.safeParse(foreign).success).toBe(false);
    const detail = endpoint('getSourceDetail');
    const paged = { page: 1, page_size: 20, total: 0, items: [] };
    expect(detail.data.safeParse({ stats: { anything: 1 }, urls: paged, prompts: paged }).success).toBe(true);
    expect(detail.served.safeParse({ stats: { anything: 1 }, urls: paged, prompts: paged }).success).toBe(false);
  });
});
