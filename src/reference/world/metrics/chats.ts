/** Chat items (one collected answer each): the prompt chats endpoint and the source chats endpoint. */

import { DAY_MS } from '../../../core/days.js';
import { type DayContext, MARKET_OWNER } from '../context.js';
import type { Engine, ScannedAnswer } from '../engine.js';
import type { DecodedFacts } from '../facts.js';
import { uuidFrom } from '../hash.js';
import { bareDomain } from '../names.js';
import { PROVIDERS } from '../providers.js';
import { resolveRef } from '../refs.js';
import { preview } from '../text.js';
import type { ProjectConfig, PromptConfig, WorldQuery } from '../types.js';
import { marketInfo, paginate, trackedInfo } from './common.js';

export interface ChatItem {
  id: string;
  date: string;
  mentioned: boolean;
  position: number | null;
  all_mentions: Array<{ name: string; icon_url: string | null; icon_urls: string[] }>;
  chat_preview: string;
  platform: string;
  model: string;
  full_content: string;
  prompt_content: string;
  references: Array<{ title: string; link: string; snippet: string; reference_index: number }>;
  brands_mentioned: Record<string, { position: number; count: number }> | null;
  sentiment: number | null;
  sentiment_by_brands: Record<string, number> | null;
}

/** The own brand's 1-based position in an answer, or 0 when it is not detected. */
export function ownPosition(ctx: DayContext, facts: DecodedFacts): number {
  if (!ctx.own) return 0;
  const i = facts.tracked.findIndex((t) => t.idx === 0);
  return i + 1;
}

export function chatId(seed: number, promptId: string, provider: number, day: number): string {
  return uuidFrom(seed, 'chat', promptId, PROVIDERS[provider]?.id ?? provider, day);
}

export function chatItem(
  engine: Engine,
  ctx: DayContext,
  prompt: PromptConfig,
  provider: number,
  day: number,
): ChatItem {
  const answer = engine.answer(ctx, prompt, provider, day);
  const plan = engine.plan(ctx, prompt);
  const { facts } = answer;
  const pos = ownPosition(ctx, facts);
  const own = pos > 0 ? facts.tracked[pos - 1] : undefined;
  const brands: Record<string, { position: number; count: number }> = {};
  const sentiments: Record<string, number> = {};
  facts.tracked.forEach((t, i) => {
    const name = ctx.tracked[t.idx]?.name ?? 'unknown';
    brands[name] = { position: i + 1, count: t.count };
    sentiments[name] = t.sentiment;
  });
  const info = PROVIDERS[provider];
  return {
    id: chatId(engine.seed, prompt.id, provider, day),
    date: new Date(day * DAY_MS + Math.min(facts.offsetMs, DAY_MS - 1000)).toISOString(),
    mentioned: pos > 0,
    position: pos > 0 ? pos : null,
    all_mentions: answer.detections.map((d) => {
      if (d.owner >= MARKET_OWNER) return marketInfo(ctx, d.owner - MARKET_OWNER);
      const t = ctx.tracked[d.owner];
      return t ? trackedInfo(t) : { name: 'unknown', icon_url: null, icon_urls: [] };
    }),
    chat_preview: preview(answer.text),
    platform: info?.id ?? 'unknown',
    model: info?.model ?? 'unknown',
    full_content: answer.text,
    prompt_content: prompt.content,
    references: facts.refs.map((r, i) => {
      const ref = resolveRef(ctx, plan, r);
      return { title: ref.title, link: ref.url, snippet: ref.snippet, reference_index: i + 1 };
    }),
    brands_mentioned: brands,
    sentiment: own ? own.sentiment : null,
    sentiment_by_brands: sentiments,
  };
}

function newestFirst(a: ScannedAnswer, b: ScannedAnswer): number {
  return b.day - a.day || b.facts.offsetMs - a.facts.offsetMs || a.provider - b.provider;
}

export function promptChats(
  engine: Engine,
  project: ProjectConfig,
  prompt: PromptConfig,
  query: WorldQuery,
): { items: ChatItem[] } {
  const found: ScannedAnswer[] = [];
  engine.scan(project, query, (a) => found.push(a), [prompt]);
  found.sort(newestFirst);
  return { items: found.map((a) => chatItem(engine, a.ctx, a.prompt, a.provider, a.day)) };
}

/** Source chat item (field names decided by the world): the chat item plus the prompt id and provider. */
export type SourceChatItem = ChatItem & { prompt_id: string; provider: string };

export function sourceChats(
  engine: Engine,
  project: ProjectConfig,
  domain: string,
  query: WorldQuery,
  page: number,
  pageSize: number,
) {
  const wanted = bareDomain(domain);
  const found: ScannedAnswer[] = [];
  engine.scan(project, query, (a) => {
    const idx = a.ctx.domainIndex.get(wanted);
    if (idx !== undefined && a.facts.refs.some((r) => r.domain === idx)) found.push(a);
  });
  found.sort(newestFirst);
  const paged = paginate(found, page, pageSize);
  return {
    ...paged,
    domain: wanted,
    items: paged.items.map((a): SourceChatItem => {
      const item = chatItem(engine, a.ctx, a.prompt, a.provider, a.day);
      return { ...item, prompt_id: a.prompt.id, provider: item.platform };
    }),
  };
}
