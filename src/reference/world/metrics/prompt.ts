/** Per-prompt metrics: the analytics endpoint (charts per date and provider) and the list-view summary. */

import { dayFromNumber, dayOfInstant } from '../../../core/days.js';
import type { PromptSummary } from '../api.js';
import type { Engine } from '../engine.js';
import { PROVIDERS } from '../providers.js';
import type { ProjectConfig, PromptConfig, WorldQuery } from '../types.js';
import { ownPosition } from './chats.js';
import { getOrInsert, Mean, percent, round2 } from './common.js';

type Chart = Record<string, Array<{ provider: string; value: number }>>;

export interface PromptAnalytics {
  prompt_id: string;
  prompt_content: string;
  volume: number | null;
  sentiment: number | null;
  visibility_chart: Chart;
  position_chart: Chart;
  sentiment_chart: Chart;
}

interface Cell {
  answers: number;
  mentioned: number;
  position: Mean;
  sentiment: Mean;
}

export function promptAnalytics(
  engine: Engine,
  project: ProjectConfig,
  prompt: PromptConfig,
  query: WorldQuery,
): PromptAnalytics {
  const cells = new Map<number, Map<number, Cell>>();
  const sentiment = new Mean();
  let volume = 0;
  engine.scan(
    project,
    query,
    ({ ctx, facts, day, provider }) => {
      volume++;
      const byProvider = getOrInsert(cells, day, () => new Map<number, Cell>());
      const cell = getOrInsert(byProvider, provider, () => ({
        answers: 0,
        mentioned: 0,
        position: new Mean(),
        sentiment: new Mean(),
      }));
      cell.answers++;
      const pos = ownPosition(ctx, facts);
      if (pos > 0) {
        const s = facts.tracked[pos - 1]?.sentiment ?? 50;
        cell.mentioned++;
        cell.position.add(pos);
        cell.sentiment.add(s);
        sentiment.add(s);
      }
    },
    [prompt],
  );
  const visibility_chart: Chart = {};
  const position_chart: Chart = {};
  const sentiment_chart: Chart = {};
  for (const day of [...cells.keys()].sort((a, b) => a - b)) {
    const date = dayFromNumber(day);
    const byProvider = cells.get(day) ?? new Map<number, Cell>();
    const providers = [...byProvider.keys()].sort((a, b) => a - b);
    const id = (p: number) => PROVIDERS[p]?.id ?? String(p);
    visibility_chart[date] = providers.map((p) => {
      const c = byProvider.get(p) as Cell;
      return { provider: id(p), value: round2(percent(c.mentioned, c.answers) ?? 0) };
    });
    position_chart[date] = providers.flatMap((p) => {
      const v = byProvider.get(p)?.position.value();
      return v === null || v === undefined ? [] : [{ provider: id(p), value: round2(v) }];
    });
    sentiment_chart[date] = providers.flatMap((p) => {
      const v = byProvider.get(p)?.sentiment.value();
      return v === null || v === undefined ? [] : [{ provider: id(p), value: round2(v) }];
    });
  }
  const s = sentiment.value();
  return {
    prompt_id: prompt.id,
    prompt_content: prompt.content,
    volume,
    sentiment: s === null ? null : Math.round(s),
    visibility_chart,
    position_chart,
    sentiment_chart,
  };
}

/** Visibility, position, sentiment and own-site citation rate of a prompt over a query. */
export function promptTotals(engine: Engine, project: ProjectConfig, prompt: PromptConfig, query: WorldQuery) {
  let answers = 0;
  let mentioned = 0;
  let citingOwn = 0;
  const position = new Mean();
  const sentiment = new Mean();
  engine.scan(
    project,
    query,
    ({ ctx, facts }) => {
      answers++;
      if (ctx.ownDomainIdx >= 0 && facts.refs.some((r) => r.domain === ctx.ownDomainIdx)) citingOwn++;
      const pos = ownPosition(ctx, facts);
      if (pos > 0) {
        mentioned++;
        position.add(pos);
        sentiment.add(facts.tracked[pos - 1]?.sentiment ?? 50);
      }
    },
    [prompt],
  );
  return {
    answers,
    mentioned,
    visibility: percent(mentioned, answers),
    position: position.value(),
    sentiment: sentiment.value(),
    cvr: percent(citingOwn, answers),
  };
}

/** Window of the list view: the 7 days ending today, and the 7 before for the trend. */
export const SUMMARY_DAYS = 7;
/** Visibility change (percentage points) from the previous window that counts as up or down. */
export const TREND_THRESHOLD = 5;

export function promptSummary(
  engine: Engine,
  project: ProjectConfig,
  prompt: PromptConfig,
  now: number,
): PromptSummary {
  const today = dayOfInstant(now);
  const window = (endOffset: number): WorldQuery => ({
    range: {
      from: dayFromNumber(today - endOffset - SUMMARY_DAYS + 1),
      to: dayFromNumber(today - endOffset),
    },
    now,
  });
  const current = promptTotals(engine, project, prompt, window(0));
  const previous = promptTotals(engine, project, prompt, window(SUMMARY_DAYS));
  let trend: PromptSummary['trend'] = null;
  if (current.visibility !== null && previous.visibility !== null) {
    const delta = current.visibility - previous.visibility;
    trend = delta >= TREND_THRESHOLD ? 'up' : delta <= -TREND_THRESHOLD ? 'down' : 'stable';
  }
  return {
    visibility: current.visibility === null ? null : round2(current.visibility),
    sentiment: current.sentiment === null ? null : Math.round(current.sentiment),
    position: current.position === null ? null : round2(current.position),
    volume: current.answers,
    cvr: current.cvr === null ? null : round2(current.cvr),
    intent: prompt.intent,
    trend,
  };
}
