/**
 * One case per error row of the public data API, keyed by the row's name in `ERRORS`: the request that provokes
 * it, on an endpoint whose catalogue entry declares the row. The harness checks status, body shape, detail (or the
 * pattern given here where the text carries a number or the schema issues) and alias code.
 */
import type { EndpointId, ErrorName } from '../../../src/api/index.js';
import type { Reply } from '../support.js';
import type { Ctx, Run } from './context.js';

export interface ErrorCase {
  endpoint: EndpointId;
  run: Run;
  /** For rows whose text is not fixed. */
  detail?: RegExp;
}

const UNKNOWN = '00000000-0000-4000-8000-00000000e404';
const ok = { brand_name: 'Rows', brand_url: 'https://rows.example', webhook_url: 'https://hooks.example/rows' };
const action = {
  title: 'T',
  description: 'D',
  category: 'on_page_seo',
  priority: 'low',
  execution: { type: 'manual', prompt: null, skill: null },
};

async function accountKey(ctx: Ctx): Promise<{ email: string; password: string; key: string; teamId: string }> {
  const email = `${ctx.unique('rows').replace(' ', '-')}@example.com`;
  const created = (await ctx.req('POST', '/account/create', { body: { email }, key: null })).body.data;
  const key = (await ctx.req('POST', '/account/api-key', { body: { email, password: created.password }, key: null }))
    .body.data.api_key;
  return { email, password: created.password, key, teamId: created.team_id };
}

/** Repeats `run` until it answers `status` (at most `max` times); the last reply. */
async function until(max: number, status: number, run: () => Promise<Reply>): Promise<Reply> {
  let reply = await run();
  for (let i = 1; i < max && reply.status !== status; i++) reply = await run();
  return reply;
}

async function withAuthOutage(ctx: Ctx, run: () => Promise<Reply>): Promise<Reply> {
  await ctx.req('POST', '/_reference/auth-outage', { body: { enabled: true }, key: null });
  try {
    return await run();
  } finally {
    await ctx.req('POST', '/_reference/auth-outage', { body: { enabled: false }, key: null });
  }
}

async function pendingCompetitor(ctx: Ctx): Promise<string> {
  const base = `/projects/${ctx.secondProjectId}/competitors`;
  return (await ctx.req('GET', `${base}/pending`)).body.data.pending_competitors[0].competitor_id;
}

export const ERROR_CASES: Partial<Record<ErrorName, ErrorCase>> = {
  // Authentication and rate limit.
  missingKey: { endpoint: 'listProjects', run: (ctx) => ctx.req('GET', '/projects', { key: null }) },
  invalidKey: { endpoint: 'listProjects', run: (ctx) => ctx.req('GET', '/projects', { key: 'vwh_nope_0000000000' }) },
  inactiveKey: {
    endpoint: 'listProjects',
    run: async (ctx) => {
      const key = ctx.mint();
      await ctx.req('POST', '/_reference/keys', { body: { api_key: key, status: 'inactive' }, key: null });
      return ctx.req('GET', '/projects', { key });
    },
  },
  expiredKey: {
    endpoint: 'listProjects',
    run: async (ctx) => {
      const key = ctx.mint();
      await ctx.req('POST', '/_reference/keys', { body: { api_key: key, expired: true }, key: null });
      return ctx.req('GET', '/projects', { key });
    },
  },
  rateLimited: {
    endpoint: 'listWebhooks',
    detail: /^Rate limit exceeded\. Retry after ([1-9]|[1-5]\d|60) seconds\.$/,
    run: async (ctx) => {
      const key = ctx.mint({ tier: 'standard' });
      return until(71, 429, () => ctx.req('GET', '/webhooks', { key }));
    },
  },
  // Account.
  badCredentials: {
    endpoint: 'createApiKey',
    run: async (ctx) => {
      const { email } = await accountKey(ctx);
      return ctx.req('POST', '/account/api-key', { body: { email, password: 'wrong' }, key: null });
    },
  },
  noAdminTeam: {
    endpoint: 'createApiKey',
    run: async (ctx) => {
      const { email, password, teamId } = await accountKey(ctx);
      await ctx.req('POST', '/_reference/memberships', { body: { email, team_id: teamId, role: 'viewer' }, key: null });
      return ctx.req('POST', '/account/api-key', { body: { email, password }, key: null });
    },
  },
  teamIdRequired: {
    endpoint: 'createApiKey',
    run: async (ctx) => {
      const { email, password } = await accountKey(ctx);
      const other = await accountKey(ctx);
      await ctx.req('POST', '/_reference/memberships', {
        body: { email, team_id: other.teamId, role: 'admin' },
        key: null,
      });
      return ctx.req('POST', '/account/api-key', { body: { email, password }, key: null });
    },
  },
  authUnavailable: {
    endpoint: 'createAccount',
    run: (ctx) =>
      withAuthOutage(ctx, () =>
        ctx.req('POST', '/account/create', { body: { email: 'outage@example.com' }, key: null }),
      ),
  },
  invalidEmail: {
    endpoint: 'createAccount',
    run: (ctx) => ctx.req('POST', '/account/create', { body: { email: 'no-at-sign' }, key: null }),
  },
  emailTaken: {
    endpoint: 'createAccount',
    run: async (ctx) => {
      await ctx.req('POST', '/account/create', { body: { email: 'taken@example.com' }, key: null });
      return ctx.req('POST', '/account/create', { body: { email: 'TAKEN@example.com' }, key: null });
    },
  },
  brandNameRequired: {
    endpoint: 'createProject',
    run: (ctx) => ctx.req('POST', '/account/projects', { body: { ...ok, brand_name: ' ' } }),
  },
  brandUrlInvalid: {
    endpoint: 'createProject',
    run: (ctx) => ctx.req('POST', '/account/projects', { body: { ...ok, brand_url: 'not a url' } }),
  },
  webhookUrlInvalid: {
    endpoint: 'createProject',
    run: (ctx) => ctx.req('POST', '/account/projects', { body: { ...ok, webhook_url: 'ftp://x' } }),
  },
  projectLimit: {
    endpoint: 'createProject',
    detail: /^You have reached the maximum number of projects/,
    run: async (ctx) => {
      const { key } = await accountKey(ctx);
      return until(10, 403, () => ctx.req('POST', '/account/projects', { body: ok, key }));
    },
  },
  // Project access.
  foreignProject: {
    endpoint: 'listPrompts',
    run: async (ctx) => ctx.req('GET', `${ctx.p}/prompts`, { key: (await accountKey(ctx)).key }),
  },
  projectNotFound: { endpoint: 'getProject', run: (ctx) => ctx.req('GET', `/projects/${UNKNOWN}`) },
  // Request validation.
  invalidRequest: {
    endpoint: 'getVisibilityTrend',
    detail: /^Invalid request: duration_days: /,
    run: (ctx) => ctx.req('GET', `${ctx.p}/visibility?duration_days=0`),
  },
  bodyTooLarge: {
    endpoint: 'createAction',
    run: (ctx) => ctx.req('POST', `${ctx.p}/actions`, { body: { ...action, description: 'x'.repeat(1024 * 1024) } }),
  },
  dateRangeInvalid: {
    endpoint: 'getPromptChats',
    run: (ctx) => ctx.req('GET', `${ctx.p}/prompts/${ctx.promptId}/chats?date_from=2026-03-10&date_to=2026-03-01`),
  },
  overviewPromptType: {
    endpoint: 'getOverview',
    run: (ctx) => ctx.req('GET', `${ctx.p}/overview?prompt_type=inactive`),
  },
  // Prompts.
  promptCreateInvalid: {
    endpoint: 'createPrompts',
    run: (ctx) => ctx.req('POST', `${ctx.p}/prompts`, { body: { prompts: ['  '], topicId: ctx.topicId } }),
  },
  promptDuplicate: {
    endpoint: 'createPrompts',
    run: async (ctx) => {
      const body = { prompts: ['the same conformance prompt'], topicId: ctx.topicId };
      await ctx.req('POST', `${ctx.p}/prompts`, { body });
      return ctx.req('POST', `${ctx.p}/prompts`, { body: { ...body, prompts: ['THE same conformance prompt '] } });
    },
  },
  promptQuota: {
    endpoint: 'createPrompts',
    run: async (ctx) => {
      const teamId = ctx.server.state.demo?.teamId;
      const plan = (name: string) =>
        ctx.req('POST', `/_reference/teams/${teamId}/plan`, { body: { plan: name }, key: null });
      await plan('skip_trial');
      try {
        const prompts = Array.from({ length: 50 }, (_, i) => `quota conformance ${i}`);
        return await ctx.req('POST', `${ctx.p}/prompts`, { body: { prompts, topicId: ctx.topicId } });
      } finally {
        await plan('enterprise');
      }
    },
  },
  promptUpdateInvalid: {
    endpoint: 'updatePrompt',
    run: (ctx) => ctx.req('PATCH', `${ctx.p}/prompts/${ctx.promptId}`, { body: {} }),
  },
  promptNotFound: { endpoint: 'getPrompt', run: (ctx) => ctx.req('GET', `${ctx.p}/prompts/${UNKNOWN}`) },
  suggestInvalid: {
    endpoint: 'suggestPrompts',
    detail: /^Invalid request/,
    run: (ctx) => ctx.req('POST', `${ctx.p}/prompts/suggested`, { body: { count: 51 } }),
  },
  urlRecsInvalid: {
    endpoint: 'recommendPromptsFromUrls',
    run: (ctx) => ctx.req('POST', `${ctx.p}/prompts/url-recommendations`, { body: { urls: [] } }),
  },
  // Actions.
  actionNotFound: { endpoint: 'getAction', run: (ctx) => ctx.req('GET', `${ctx.p}/actions/${UNKNOWN}`) },
  actionInvalid: {
    endpoint: 'createAction',
    run: (ctx) => ctx.req('POST', `${ctx.p}/actions`, { body: { ...action, category: 'blog' } }),
  },
  enrichInvalid: {
    endpoint: 'enrichAction',
    run: (ctx) => ctx.req('POST', `${ctx.p}/actions/enrich`, { body: { action_type: 'blog' } }),
  },
  // Competitors.
  competitorCreateInvalid: {
    endpoint: 'createCompetitors',
    run: (ctx) =>
      ctx.req('POST', `${ctx.p}/competitors`, {
        body: {
          competitors: [
            { name: 'Twin', website: 'twin.example' },
            { name: 'Twin Again', website: 'https://www.twin.example/' },
          ],
        },
      }),
  },
  competitorDomainTaken: {
    endpoint: 'createCompetitors',
    run: async (ctx) => {
      const body = { competitors: [{ name: 'Taken', website: 'taken-rival.example' }] };
      await ctx.req('POST', `${ctx.p}/competitors`, { body });
      return ctx.req('POST', `${ctx.p}/competitors`, {
        body: { competitors: [{ name: 'Taken 2', website: 'https://taken-rival.example' }] },
      });
    },
  },
  competitorLimit: {
    endpoint: 'createCompetitors',
    run: (ctx) =>
      until(12, 429, () => {
        const name = ctx.unique('Limit Rival');
        const website = `${name.replace(/\W+/g, '-').toLowerCase()}.example`;
        return ctx.req('POST', `${ctx.p}/competitors`, { body: { competitors: [{ name, website }] } });
      }),
  },
  competitorUpdateInvalid: {
    endpoint: 'updateCompetitor',
    run: async (ctx) => {
      const rivals = (await ctx.req('GET', `${ctx.p}/competitors`)).body.data.active_competitors;
      const rival = rivals.find((c: { is_own_brand: boolean }) => !c.is_own_brand);
      return ctx.req('PATCH', `${ctx.p}/competitors/${rival.competitor_id}`, { body: {} });
    },
  },
  competitorNotFound: {
    endpoint: 'deleteCompetitor',
    run: (ctx) => ctx.req('DELETE', `${ctx.p}/competitors/${UNKNOWN}`),
  },
  competitorStateInvalid: {
    endpoint: 'reviewCompetitor',
    run: async (ctx) =>
      ctx.req('PATCH', `/projects/${ctx.secondProjectId}/competitors/${await pendingCompetitor(ctx)}/state`, {
        body: { state: 'pending' },
      }),
  },
  competitorNotPending: {
    endpoint: 'reviewCompetitor',
    run: async (ctx) => {
      const url = `/projects/${ctx.secondProjectId}/competitors/${await pendingCompetitor(ctx)}/state`;
      await ctx.req('PATCH', url, { body: { state: 'inactive' } });
      return ctx.req('PATCH', url, { body: { state: 'active' } });
    },
  },
  // Aliases.
  aliasEmpty: { endpoint: 'addAlias', run: (ctx) => ctx.req('POST', `${ctx.p}/aliases`, { body: { alias: '  ' } }) },
  aliasTooLong: {
    endpoint: 'addAlias',
    run: (ctx) => ctx.req('POST', `${ctx.p}/aliases`, { body: { alias: 'a'.repeat(101) } }),
  },
  aliasNotFound: { endpoint: 'deleteAlias', run: (ctx) => ctx.req('DELETE', `${ctx.p}/aliases?alias=never-added`) },
  aliasDuplicate: {
    endpoint: 'addAlias',
    run: async (ctx) => {
      await ctx.req('POST', `${ctx.p}/aliases`, { body: { alias: 'Twice Alias' } });
      return ctx.req('POST', `${ctx.p}/aliases`, { body: { alias: 'TWICE alias' } });
    },
  },
  aliasLimit: {
    endpoint: 'addAlias',
    run: (ctx) =>
      until(21, 429, () => ctx.req('POST', `${ctx.p}/aliases`, { body: { alias: ctx.unique('limit alias') } })),
  },
  // Recorded URLs.
  recordingInvalid: {
    endpoint: 'recordUrls',
    run: (ctx) => ctx.req('POST', `${ctx.p}/recording`, { body: { urls: [] } }),
  },
  // Webhooks.
  webhookInvalid: {
    endpoint: 'createWebhook',
    run: (ctx) =>
      ctx.req('POST', '/webhooks', { body: { url: 'http://hooks.example.com/x', events: ['action.failed'] } }),
  },
  webhookDuplicate: {
    endpoint: 'createWebhook',
    run: async (ctx) => {
      const body = { url: 'https://hooks.example.com/twice', events: ['action.failed'] };
      await ctx.req('POST', '/webhooks', { body });
      return ctx.req('POST', '/webhooks', { body });
    },
  },
  readOnlyKey: {
    endpoint: 'createWebhook',
    run: (ctx) =>
      ctx.req('POST', '/webhooks', {
        body: { url: 'https://hooks.example.com/viewer', events: ['action.failed'] },
        key: ctx.mint({ role: 'viewer' }),
      }),
  },
  webhookNotFound: { endpoint: 'deleteWebhook', run: (ctx) => ctx.req('DELETE', '/webhooks/wh_never_registered') },
};
