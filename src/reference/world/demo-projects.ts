/**
 * The demo team: projects for the invented businesses of demo-catalog.ts, with aliases, active and pending
 * competitors, topics, prompts whose type changes over time, and actions in every status (several completed
 * inside the history window, with targets, so their effect on visibility can be measured).
 */

import { DAY_MS, dayNumber } from '../../core/days.js';
import type { DemoTeamOptions } from './api.js';
import { INDUSTRIES, type Industry, industryPrompts } from './demo-catalog.js';
import { hashParts, rand01, uuidFrom } from './hash.js';
import { nicknames } from './names.js';
import type {
  ActionCategory,
  ActionConfig,
  ActionStatus,
  AliasConfig,
  CompetitorConfig,
  Intent,
  OwnShift,
  ProjectConfig,
  PromptConfig,
  TopicConfig,
} from './types.js';

const INTENTS: readonly Intent[] = ['informational', 'commercial', 'navigational', 'transactional'];

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

interface Window {
  start: number;
  days: number;
  /** Instant at `fraction` of the history window, at `hour` UTC. */
  at(fraction: number, hour?: number): number;
}

function competitorsFor(
  seed: number,
  projectId: string,
  industry: Industry,
  w: Window,
  ownAsCompetitor: boolean,
  website: string,
): CompetitorConfig[] {
  const order = industry.rivals
    .map((r, i) => ({ r, k: hashParts(seed, projectId, 'rival-order', i) }))
    .sort((a, b) => a.k - b.k)
    .map((x) => x.r);
  const active = Math.min(order.length - 2, 4 + (hashParts(seed, projectId, 'rivals') % 5));
  const created = iso(w.at(0) - 7 * DAY_MS);
  const out: CompetitorConfig[] = order.slice(0, active).map((r, i) => ({
    id: uuidFrom(seed, projectId, 'competitor', r.name),
    name: r.name,
    website: `https://${r.domain}`,
    state: 'active',
    // The last active competitor was added mid-history: its tracking starts then.
    created_at: i === active - 1 ? iso(w.at(0.4, 11)) : created,
    deleted_at: null,
  }));
  const pending = order[active];
  if (pending) {
    out.push({
      id: uuidFrom(seed, projectId, 'competitor', pending.name),
      name: pending.name,
      website: `https://${pending.domain}`,
      state: 'pending',
      created_at: iso(w.at(1) - 3 * DAY_MS + 4 * 3_600_000),
      deleted_at: null,
    });
  }
  if (ownAsCompetitor) {
    out.unshift({
      id: uuidFrom(seed, projectId, 'competitor', 'own'),
      name: industry.brand,
      website,
      state: 'active',
      created_at: created,
      deleted_at: null,
    });
  }
  return out;
}

function aliasesFor(industry: Industry, index: number, w: Window): AliasConfig[] {
  const [first, initials] = nicknames(industry.brand);
  const out: AliasConfig[] = [];
  if (first) out.push({ name: first, match_type: 'fuzzy', created_at: iso(w.at(0) - 7 * DAY_MS) });
  // Added mid-history: from that day on, answers writing the initials count as mentions.
  if (initials) out.push({ name: initials, match_type: 'exact', created_at: iso(w.at(0.5, 15)) });
  if (index % 2 === 1) {
    out.push({
      name: industry.website.replace(/^https?:\/\/(www\.)?/, ''),
      match_type: 'exact',
      created_at: iso(w.at(0.2, 9)),
    });
  }
  return out;
}

function promptsFor(
  seed: number,
  projectId: string,
  industry: Industry,
  topics: TopicConfig[],
  count: number,
  w: Window,
  location: string,
): PromptConfig[] {
  const texts = industryPrompts(industry);
  const created = w.at(0) - 7 * DAY_MS + 9 * 3_600_000;
  return Array.from({ length: count }, (_, i) => {
    const base = texts[i % texts.length] ?? { content: `${industry.brand} question`, topic: 0 };
    const content = i < texts.length ? base.content : `${base.content} (${Math.floor(i / texts.length) + 1})`;
    const u = rand01(seed, projectId, 'prompt-kind', i);
    const createdAt =
      i % 10 === 9 ? w.at(0.3 + 0.4 * rand01(seed, projectId, 'prompt-late', i), 10) : created + i * 60_000;
    const history: PromptConfig['type_history'] = [];
    if (u < 0.05) history.push({ from: iso(createdAt), prompt_type: 'suggested' });
    else if (u < 0.1) {
      history.push({ from: iso(createdAt), prompt_type: 'active' });
      history.push({ from: iso(w.at(0.6 + 0.3 * rand01(seed, projectId, 'off', i), 14)), prompt_type: 'inactive' });
    } else if (u < 0.15) {
      history.push({ from: iso(createdAt), prompt_type: 'suggested' });
      history.push({ from: iso(w.at(0.25 + 0.3 * rand01(seed, projectId, 'on', i), 16)), prompt_type: 'active' });
    } else history.push({ from: iso(createdAt), prompt_type: 'active' });
    const intent = INTENTS[hashParts(seed, projectId, 'intent', i) % INTENTS.length] ?? null;
    return {
      id: uuidFrom(seed, projectId, 'prompt', i),
      content,
      topic_id: topics[base.topic]?.id ?? null,
      country: location,
      intent,
      created_at: iso(createdAt),
      type_history: history,
    };
  });
}

interface ActionSpec {
  status: ActionStatus;
  category: ActionCategory;
  title: string;
  targets: ActionConfig['targets'];
  impact: [number, number] | null;
  completedAt: number | null;
  priority: 'critical' | 'high' | 'medium' | 'low';
  effort: 'quick-win' | 'moderate' | 'major' | null;
}

function actionsFor(seed: number, projectId: string, industry: Industry, w: Window): ActionConfig[] {
  const keywordTopic = industry.topics[1] ?? industry.topics[0];
  const keyword = keywordTopic?.subjects[0] ?? industry.brand;
  const site = industry.website.replace(/\/$/, '');
  const topicName = keywordTopic?.name.toLowerCase() ?? 'products';
  const specs: ActionSpec[] = [
    {
      status: 'completed',
      category: 'new_content',
      title: `Publish a buyer's guide on ${keyword}`,
      targets: [{ type: 'keyword', value: keyword }],
      impact: [8, 15],
      completedAt: w.at(0.35, 13),
      priority: 'high',
      effort: 'major',
    },
    {
      status: 'completed',
      category: 'forum_engagement',
      title: `Answer ${topicName} questions on Reddit`,
      targets: [{ type: 'domain', value: 'reddit.com' }],
      impact: [5, 10],
      completedAt: w.at(0.55, 10),
      priority: 'medium',
      effort: 'moderate',
    },
    {
      status: 'completed',
      category: 'on_page_seo',
      title: 'Add structured data to product pages',
      targets: [{ type: 'page_type', value: 'product' }],
      impact: [3, 6],
      completedAt: w.at(0.75, 16),
      priority: 'medium',
      effort: 'quick-win',
    },
    {
      status: 'in_progress',
      category: 'content_update',
      title: `Refresh the ${topicName} comparison page`,
      targets: [{ type: 'url', value: `${site}/blog/${topicName.replace(/\s+/g, '-')}` }],
      impact: [4, 8],
      completedAt: null,
      priority: 'high',
      effort: 'moderate',
    },
    {
      status: 'accepted',
      category: 'new_content',
      title: `Write a FAQ about ${industry.topics[0]?.name.toLowerCase() ?? 'our products'}`,
      targets: [{ type: 'keyword', value: industry.topics[0]?.subjects[0] ?? industry.brand }],
      impact: [5, 12],
      completedAt: null,
      priority: 'medium',
      effort: 'moderate',
    },
    {
      status: 'suggested',
      category: 'on_page_seo',
      title: 'Improve title tags of category pages',
      targets: [{ type: 'page_type', value: 'category' }],
      impact: [2, 5],
      completedAt: null,
      priority: 'low',
      effort: 'quick-win',
    },
    {
      status: 'suggested',
      category: 'forum_engagement',
      title: 'Reply to product threads on Quora',
      targets: [{ type: 'domain', value: 'quora.com' }],
      impact: null,
      completedAt: null,
      priority: 'critical',
      effort: null,
    },
    {
      status: 'ignored',
      category: 'content_update',
      title: 'Rewrite the about page',
      targets: [],
      impact: [1, 3],
      completedAt: null,
      priority: 'low',
      effort: 'quick-win',
    },
  ];
  return specs.map((s, i) => {
    const created = w.at(Math.max(0, 0.05 + 0.1 * i - (s.completedAt ? 0.05 : 0)), 8);
    const createdAt = s.completedAt !== null ? Math.min(created, s.completedAt - 10 * DAY_MS) : created;
    const updatedAt = s.completedAt ?? Math.max(createdAt, w.at(0.9, 12));
    return {
      id: uuidFrom(seed, projectId, 'action', i),
      category: s.category,
      status: s.status,
      targets: s.targets,
      expected_impact_min: s.impact?.[0] ?? null,
      expected_impact_max: s.impact?.[1] ?? null,
      completed_at: s.completedAt !== null ? iso(s.completedAt) : null,
      title: s.title,
      description: `${s.title} to raise ${industry.brand}'s visibility in AI answers.`,
      priority: s.priority,
      effort: s.effort,
      created_at: iso(createdAt),
      updated_at: iso(updatedAt),
    };
  });
}

/**
 * `count` planted changes of the own brand (an extension for estimator tests, off by default): evenly spaced over the
 * second half of the history, alternately up and down, 6–10 points each (drawn per project and shift).
 */
function ownShiftsFor(seed: number, projectId: string, count: number, w: Window): OwnShift[] {
  return Array.from({ length: count }, (_, i) => ({
    at: iso(w.at(0.5 + (0.45 * (i + 0.5)) / count, 12)),
    impact_pp: ((i % 2 === 0 ? 1 : -1) * Math.round(600 + 400 * rand01(seed, projectId, 'own-shift', i))) / 100,
  }));
}

export function demoTeam(options: DemoTeamOptions): ProjectConfig[] {
  const todayStart = dayNumber(options.today) * DAY_MS;
  const start = todayStart - options.historyDays * DAY_MS;
  const w: Window = {
    start,
    days: options.historyDays,
    at: (fraction, hour = 0) => start + Math.floor(fraction * options.historyDays) * DAY_MS + hour * 3_600_000,
  };
  return Array.from({ length: options.projects }, (_, index) => {
    const industry = INDUSTRIES[index % INDUSTRIES.length] ?? (INDUSTRIES[0] as Industry);
    const round = Math.floor(index / INDUSTRIES.length);
    const id = uuidFrom(options.seed, options.teamId, 'project', index);
    const topics = industry.topics.map((t, i) => ({ id: uuidFrom(options.seed, id, 'topic', i), name: t.name }));
    return {
      id,
      team_id: options.teamId,
      name: round === 0 ? industry.brand : `${industry.brand} (${round + 1})`,
      brand_name: industry.brand,
      website_url: industry.website,
      location: industry.location,
      language: industry.language,
      created_at: iso(start - 7 * DAY_MS + index * 3_600_000),
      aliases: aliasesFor(industry, index, w),
      competitors: competitorsFor(options.seed, id, industry, w, index === 0, industry.website),
      topics,
      prompts: promptsFor(options.seed, id, industry, topics, options.promptsPerProject, w, industry.location),
      actions: actionsFor(options.seed, id, industry, w),
      ...((options.ownShifts ?? 0) > 0
        ? { own_shifts: ownShiftsFor(options.seed, id, options.ownShifts ?? 0, w) }
        : {}),
    };
  });
}
