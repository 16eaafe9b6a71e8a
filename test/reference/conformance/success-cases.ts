/**
 * One success case per endpoint of the public data API, keyed by catalogue id. The harness checks the status and
 * the served-response schema of the reply; `check` asserts what the spec says the data holds.
 */
import { expect } from 'vitest';
import type { EndpointId } from '../../../src/api/index.js';
import type { Json } from '../support.js';
import type { Ctx, Run } from './context.js';

export interface SuccessCase {
  run: Run;
  check?: (data: Json, ctx: Ctx) => void;
}

const RANGE = '?duration_days=14';

const action = {
  title: 'Answer the gravel thread',
  description: 'Reply on the forum thread that ranks for gravel bikes.',
  category: 'forum_engagement',
  priority: 'medium',
  execution: { type: 'forum_reply', prompt: 'Draft a reply', skill: null },
};

async function createCompetitor(ctx: Ctx): Promise<string> {
  const name = ctx.unique('Conformance Rival');
  const website = `${name.replace(/\W+/g, '-').toLowerCase()}.example`;
  const res = await ctx.req('POST', `${ctx.p}/competitors`, { body: { competitors: [{ name, website }] } });
  return res.body.data.competitors[0].competitorId;
}

async function createPrompt(ctx: Ctx): Promise<string> {
  const body = { prompts: [ctx.unique('conformance prompt')], topicId: ctx.topicId };
  return (await ctx.req('POST', `${ctx.p}/prompts`, { body })).body.data.prompts[0].id;
}

async function account(ctx: Ctx): Promise<{ email: string; password: string }> {
  const email = `${ctx.unique('conformance').replace(' ', '-')}@example.com`;
  const res = await ctx.req('POST', '/account/create', { body: { email }, key: null });
  return { email, password: res.body.data.password };
}

export const SUCCESS_CASES: Partial<Record<EndpointId, SuccessCase>> = {
  createAccount: {
    run: (ctx) => ctx.req('POST', '/account/create', { body: { email: ' Conf@Example.ORG ' }, key: null }),
    check: (data) => {
      expect(data.email).toBe('conf@example.org');
      expect(data.password.length).toBeGreaterThanOrEqual(12);
    },
  },
  createApiKey: {
    run: async (ctx) => ctx.req('POST', '/account/api-key', { body: await account(ctx), key: null }),
    check: (data) => {
      expect(data.key_prefix).toBe(data.api_key.slice(0, 12));
      expect(data.rate_limit_tier).toBe('standard');
    },
  },
  createProject: {
    run: (ctx) =>
      ctx.req('POST', '/account/projects', {
        body: {
          brand_name: 'Conformance',
          brand_url: 'https://conformance.example',
          webhook_url: 'https://hooks.example/b',
        },
      }),
    check: (data) => expect(data.status).toBe('initializing'),
  },
  listProjects: {
    run: (ctx) => ctx.req('GET', '/projects'),
    check: (data) => {
      const created = data.map((x: { created_at: string }) => x.created_at);
      expect(created).toEqual([...created].sort());
      expect(data.every((x: { brand_aliases: string[] }) => x.brand_aliases.length === 0)).toBe(true);
    },
  },
  getProject: {
    run: (ctx) => ctx.req('GET', ctx.p),
    check: (data, ctx) => expect(data.id).toBe(ctx.projectId),
  },
  listPrompts: {
    run: (ctx) => ctx.req('GET', `${ctx.p}/prompts`),
    check: (data) => expect(data.total).toBe(data.prompts.length),
  },
  getPrompt: {
    run: (ctx) => ctx.req('GET', `${ctx.p}/prompts/${ctx.promptId}`),
    check: (data, ctx) => expect(data).toMatchObject({ id: ctx.promptId, prompt_type: 'active' }),
  },
  createPrompts: {
    run: (ctx) =>
      ctx.req('POST', `${ctx.p}/prompts`, {
        body: { prompts: [ctx.unique('conformance create')], topicId: ctx.topicId },
      }),
    check: (data) => {
      expect(data.created).toBe(1);
      expect(data.prompts[0].promptType).toBe('Active');
    },
  },
  updatePrompt: {
    run: async (ctx) =>
      ctx.req('PATCH', `${ctx.p}/prompts/${await createPrompt(ctx)}`, { body: { promptType: 'Inactive' } }),
    check: (data) => expect(data.promptType ?? data.prompt_type).toMatch(/^(Inactive|inactive)$/),
  },
  suggestPrompts: {
    run: (ctx) => ctx.req('POST', `${ctx.p}/prompts/suggested`, { body: { count: 2 } }),
    check: (data) => {
      expect(data.prompts).toHaveLength(2);
      expect(data.prompts.every((x: { content: string; promptType: string }) => x.promptType === 'Suggested')).toBe(
        true,
      );
    },
  },
  recommendPromptsFromUrls: {
    run: (ctx) =>
      ctx.req('POST', `${ctx.p}/prompts/url-recommendations`, { body: { urls: ['https://shop.example/gravel'] } }),
    check: (data) => expect(data).toMatchObject({ urlsProvided: 1, placeholdersCreated: 5 }),
  },
  getPromptAnalytics: {
    run: (ctx) => ctx.req('GET', `${ctx.p}/prompts/${ctx.promptId}/analytics${RANGE}`),
    check: (data, ctx) => {
      expect(data.prompt_id).toBe(ctx.promptId);
      expect(Object.keys(data.visibility_chart).length).toBeGreaterThan(0);
    },
  },
  getPromptChats: {
    run: (ctx) => ctx.req('GET', `${ctx.p}/prompts/${ctx.promptId}/chats${RANGE}`),
    check: (data) => {
      expect(data.items.length).toBeGreaterThan(0);
      expect(data.items.every((c: { chat_preview: string }) => c.chat_preview.length <= 150)).toBe(true);
    },
  },
  getPromptDomains: {
    run: (ctx) => ctx.req('GET', `${ctx.p}/prompts/${ctx.promptId}/domains${RANGE}`),
    check: (data) => {
      const counts = data.items.map((d: { citation_count: number }) => d.citation_count);
      expect(counts.length).toBeGreaterThan(0);
      expect(counts).toEqual([...counts].sort((a: number, b: number) => b - a));
    },
  },
  getPromptUrls: {
    run: (ctx) => ctx.req('GET', `${ctx.p}/prompts/${ctx.promptId}/urls${RANGE}`),
    check: (data) => {
      const counts = data.items.map((d: { mentioned_count: number }) => d.mentioned_count);
      expect(counts.length).toBeGreaterThan(0);
      expect(counts).toEqual([...counts].sort((a: number, b: number) => b - a));
    },
  },
  listCompetitors: {
    run: (ctx) => ctx.req('GET', `${ctx.p}/competitors${RANGE}`),
    check: (data) => {
      expect(data.total_active).toBe(data.active_competitors.length);
      expect(data.active_competitors.filter((c: { is_own_brand: boolean }) => c.is_own_brand)).toHaveLength(1);
    },
  },
  listPendingCompetitors: {
    run: (ctx) => ctx.req('GET', `/projects/${ctx.secondProjectId}/competitors/pending`),
    check: (data) => {
      expect(data.total_pending).toBeGreaterThan(0);
      expect(data.pending_competitors.every((c: { metrics: unknown }) => c.metrics === null)).toBe(true);
    },
  },
  reviewCompetitor: {
    run: async (ctx) => {
      const base = `/projects/${ctx.secondProjectId}/competitors`;
      const pending = (await ctx.req('GET', `${base}/pending`)).body.data.pending_competitors[0];
      return ctx.req('PATCH', `${base}/${pending.competitor_id}/state`, { body: { state: 'active' } });
    },
    check: (data) => expect(data.state).toBe('active'),
  },
  createCompetitors: {
    run: (ctx) =>
      ctx.req('POST', `${ctx.p}/competitors`, {
        body: { competitors: [{ name: 'Velo Conformance', website: 'velo-conformance.example' }] },
      }),
    check: (data) => {
      expect(data.created).toBe(1);
      expect(data.competitors[0]).toMatchObject({ website: 'https://velo-conformance.example', state: 'active' });
    },
  },
  updateCompetitor: {
    run: async (ctx) =>
      ctx.req('PATCH', `${ctx.p}/competitors/${await createCompetitor(ctx)}`, { body: { name: 'Renamed Rival' } }),
    check: (data) => expect(data.name).toBe('Renamed Rival'),
  },
  deleteCompetitor: {
    run: async (ctx) => ctx.req('DELETE', `${ctx.p}/competitors/${await createCompetitor(ctx)}`),
  },
  listAliases: {
    run: (ctx) => ctx.req('GET', `${ctx.p}/aliases`),
    check: (data) => expect(data.limit).toBe(20),
  },
  addAlias: {
    run: (ctx) => ctx.req('POST', `${ctx.p}/aliases`, { body: { alias: 'Conformance Alias' } }),
    check: (data) => expect(data.aliases.at(-1)).toEqual({ name: 'Conformance Alias', match_type: 'fuzzy' }),
  },
  updateAlias: {
    run: async (ctx) => {
      await ctx.req('POST', `${ctx.p}/aliases`, { body: { alias: 'Alias Before' } });
      return ctx.req('PATCH', `${ctx.p}/aliases`, {
        body: { original_alias: 'alias before', new_alias: 'Alias After' },
      });
    },
    check: (data) => expect(data.aliases.map((a: { name: string }) => a.name)).toContain('Alias After'),
  },
  deleteAlias: {
    run: async (ctx) => {
      await ctx.req('POST', `${ctx.p}/aliases`, { body: { alias: 'Alias Gone' } });
      return ctx.req('DELETE', `${ctx.p}/aliases?alias=ALIAS%20GONE`);
    },
    check: (data) => expect(data.aliases.map((a: { name: string }) => a.name)).not.toContain('Alias Gone'),
  },
  listRecordedUrls: {
    run: (ctx) => ctx.req('GET', `${ctx.p}/recording`),
    check: (data) => expect(data.total).toBe(data.urls.length),
  },
  recordUrls: {
    run: (ctx) => ctx.req('POST', `${ctx.p}/recording`, { body: { urls: [{ url: 'https://shop.example/conf' }] } }),
    check: (data) => expect(data.affected_count).toBe(1),
  },
  removeRecordedUrls: {
    run: async (ctx) => {
      await ctx.req('POST', `${ctx.p}/recording`, { body: { urls: [{ url: 'https://shop.example/conf-gone' }] } });
      return ctx.req('DELETE', `${ctx.p}/recording`, { body: { urls: ['https://shop.example/conf-gone'] } });
    },
    check: (data) => expect(data.affected_count).toBe(1),
  },
  getOverview: {
    run: (ctx) => ctx.req('GET', `${ctx.p}/overview${RANGE}`),
    check: (data) => {
      expect(data.items.length).toBeGreaterThan(0);
      expect(data.items.every((i: { prompt_type: string }) => i.prompt_type === 'active')).toBe(true);
    },
  },
  getVisibilityTrend: {
    run: (ctx) => ctx.req('GET', `${ctx.p}/visibility${RANGE}`),
    check: (data) => {
      expect(data.dates).toHaveLength(14);
      for (const s of data.series) expect(s.visibility).toHaveLength(14);
    },
  },
  listSources: {
    run: (ctx) => ctx.req('GET', `${ctx.p}/sources${RANGE}`),
    check: (data) => expect(data.length).toBeGreaterThan(0),
  },
  getSourcesAnalytics: {
    run: (ctx) => ctx.req('GET', `${ctx.p}/sources/analytics${RANGE}`),
    check: (data) => {
      expect(data.top_domains.length).toBeLessThanOrEqual(20);
      expect(data.performance_chart.series.length).toBeLessThanOrEqual(10);
    },
  },
  getSourceDetail: {
    run: (ctx) => ctx.req('GET', `${ctx.p}/sources/reddit.com/detail${RANGE}`),
    check: (data) => expect(data.urls).toMatchObject({ page: 1, page_size: 20 }),
  },
  getSourceChats: {
    run: (ctx) => ctx.req('GET', `${ctx.p}/sources/reddit.com/chats${RANGE}`),
    check: (data) => expect(data.items.length).toBeLessThanOrEqual(10),
  },
  listActions: {
    run: (ctx) => ctx.req('GET', `${ctx.p}/actions?status=suggested`),
    check: (data) => expect(data.every((a: { status: string }) => a.status === 'suggested')).toBe(true),
  },
  getAction: {
    run: async (ctx) => {
      const created = (await ctx.req('POST', `${ctx.p}/actions`, { body: action })).body.data;
      return ctx.req('GET', `${ctx.p}/actions/${created.id}`);
    },
    check: (data) => expect(data.title).toBe(action.title),
  },
  createAction: {
    run: (ctx) => ctx.req('POST', `${ctx.p}/actions`, { body: action }),
    check: (data) => expect(data).toMatchObject({ status: 'suggested', targets: [], depends_on: [] }),
  },
  enrichAction: {
    run: (ctx) => ctx.req('POST', `${ctx.p}/actions/enrich`, { body: { action_type: 'on_page_seo' } }),
    check: (data) => expect(typeof data.title).toBe('string'),
  },
  createWebhook: {
    run: (ctx) =>
      ctx.req('POST', '/webhooks', { body: { url: 'https://hooks.example.com/conf', events: ['action.failed'] } }),
    check: (data) => expect(data.secret.length).toBeGreaterThan(16),
  },
  listWebhooks: {
    run: (ctx) => ctx.req('GET', '/webhooks'),
    check: (data) => expect(data.every((w: { secret?: string }) => w.secret === undefined)).toBe(true),
  },
  deleteWebhook: {
    run: async (ctx) => {
      const body = { url: 'https://hooks.example.com/conf-gone', events: ['action.completed'] };
      const created = (await ctx.req('POST', '/webhooks', { body })).body.data;
      return ctx.req('DELETE', `/webhooks/${created.id}`);
    },
    check: (data) => expect(data.id).toMatch(/^wh_/),
  },
};
