/**
 * The services' conformance cases (content, bootstrap, teams), keyed by catalogue id (success) and by
 * `id:errorName` (errors), and the context they run in. test/reference/services/conformance.test.ts runs them
 * against the reference server directly; test/contract/prism-conformance.test.ts through Prism's validating proxy.
 */
import { expect } from 'vitest';
import {
  allEndpoints,
  ERRORS,
  type ErrorName,
  type ErrorRow,
  errorSchema,
  MAX_BODY_BYTES,
} from '../../../src/api/index.js';
import { createAccount, type Harness, type Reply } from './support.js';

export const SERVICES = allEndpoints().filter((def) => def.service !== 'public');
const NAME_OF = new Map<ErrorRow, ErrorName>(Object.entries(ERRORS).map(([name, row]) => [row, name as ErrorName]));
const UNKNOWN = '77777777-7777-4777-8777-777777777777';
const SWITCH = '/_reference/services/faults';
// 70 s of background delay: a task completes, and a bootstrap phase runs, when the clock moves 70 s.
export const STEP_S = 70;

/**
 * Rows the contract declares that the reference never answers, and why. The spec lists RATE_LIMIT_ERROR ("too many
 * concurrent requests") for the whole content service; the reference limits concurrent tasks, so only a create
 * can exceed it. The contract keeps the row everywhere so that a client is ready for it.
 */
export const NOT_PRODUCED: Record<string, string> = Object.fromEntries(
  ['listTasks', 'getTask', 'cancelTask', 'listTaskArticles', 'listArticles', 'getArticle', 'updateArticle']
    .concat(['deleteArticle'])
    .map((id) => [`${id}:contentRateLimit`, 'concurrency is limited on task creation only']),
);

export interface Ctx {
  h: Harness;
  projectId: string;
  task(prompt?: string): Promise<string>;
  completedTask(): Promise<string>;
  article(): Promise<string>;
  /** A project moved through the v1 steps up to `upTo`. */
  bootstrapTo(upTo: 'initialized' | 'analyzed'): Promise<string>;
  account(email: string): Promise<{ user_id: string; team_id: string }>;
}

export type Case = (ctx: Ctx) => Promise<Reply>;

const INIT = { brand_name: 'Acme', url: 'https://acme.example.com' };

export const SUCCESS: Record<string, Case> = {
  createTask: ({ h }) => h.call('POST', '/api/v1/tasks', { user_prompt: 'Conformance' }),
  listTasks: async ({ h, task }) => {
    await task();
    return h.call('GET', '/api/v1/tasks?status=pending&limit=5&offset=0');
  },
  getTask: async ({ h, task }) => h.call('GET', `/api/v1/tasks/${await task()}`),
  cancelTask: async ({ h, task }) => h.call('DELETE', `/api/v1/tasks/${await task()}`),
  listTaskArticles: async ({ h, completedTask }) => h.call('GET', `/api/v1/tasks/${await completedTask()}/articles`),
  listArticles: async ({ h, article }) => {
    await article();
    return h.call('GET', '/api/v1/articles?publication_status=draft&page=1&page_size=5');
  },
  getArticle: async ({ h, article }) => h.call('GET', `/api/v1/articles/${await article()}`),
  updateArticle: async ({ h, article }) =>
    h.call('PATCH', `/api/v1/articles/${await article()}`, { publication_status: 'published' }),
  deleteArticle: async ({ h, article }) => h.call('DELETE', `/api/v1/articles/${await article()}`),
  bootstrapInitialize: ({ h, projectId }) =>
    h.call('POST', '/api/v1/bootstrap/initialize', { project_id: projectId, ...INIT }),
  bootstrapPrompt: async ({ h, bootstrapTo }) =>
    h.call('POST', '/api/v1/bootstrap/prompt', { project_id: await bootstrapTo('initialized') }),
  bootstrapComplete: async ({ h, bootstrapTo }) =>
    h.call('POST', '/api/v1/bootstrap/complete', { project_id: await bootstrapTo('analyzed') }),
  getBootstrapProject: ({ h, projectId }) => h.call('GET', `/api/v2/projects/${projectId}`),
  createTeam: async ({ h, account }) =>
    h.call('POST', '/api/v2/create_team', { user_id: (await account('a@example.com')).user_id }),
  getMyTeam: async ({ h, account }) =>
    h.call('GET', `/api/v2/teams/me?user_id=${(await account('a@example.com')).user_id}`),
  listMembers: async ({ h, account }) => {
    const a = await account('a@example.com');
    return h.call('GET', `/api/v2/teams/${a.team_id}/members?user_id=${a.user_id}`);
  },
  addMember: async ({ h, account }) => {
    const a = await account('a@example.com');
    return h.call('POST', `/api/v2/teams/${a.team_id}/members`, { user_id: a.user_id, email: 'b@example.com' });
  },
  removeMember: async ({ h, account }) => {
    const a = await account('a@example.com');
    await h.call('POST', `/api/v2/teams/${a.team_id}/members`, { user_id: a.user_id, email: 'b@example.com' });
    return h.call('DELETE', `/api/v2/teams/${a.team_id}/members/b%40example.com?user_id=${a.user_id}`);
  },
};

/** Sets a services switch, runs the call, clears the switches. */
async function withSwitch(h: Harness, body: unknown, run: () => Promise<Reply>): Promise<Reply> {
  expect((await h.call('PUT', SWITCH, body)).status).toBe(200);
  try {
    return await run();
  } finally {
    await h.call('DELETE', SWITCH);
  }
}

const outage = (path: string, method = 'GET', body?: unknown): Case => {
  return ({ h }) => withSwitch(h, { content: { storage_outage: true } }, () => h.call(method, path, body));
};

const failedTask =
  (code: 'LLM_ERROR' | 'WORKFLOW_ERROR'): Case =>
  async ({ h }) => {
    await h.call('PUT', SWITCH, { content: { next_failure: { phase: 'outline', code } } });
    const id = (await h.call('POST', '/api/v1/tasks', { user_prompt: 'Doomed' })).body.task_id;
    await h.advance(STEP_S);
    return h.call('GET', `/api/v1/tasks/${id}/articles`);
  };

const member = (ctx: Ctx, method: string, suffix: string, body?: unknown) =>
  ctx.account('owner@example.com').then((a) => ctx.h.call(method, `/api/v2/teams/${a.team_id}/members${suffix}`, body));

/** A body one byte over the limit every service shares (413 before any route reads it). */
const tooLarge =
  (method: string, path: string): Case =>
  ({ h }) =>
    h.call(method, path, { text: 'x'.repeat(MAX_BODY_BYTES) });

/** A `user_id` that is no UUID: every service endpoint checks the caller, even one that does not use it. */
const badCaller =
  (method: string, path: string): Case =>
  ({ h }) =>
    h.call(method, `${path}?user_id=nope`);

export const ERROR_CASES: Record<string, Case> = {
  'createTask:bodyTooLarge': tooLarge('POST', '/api/v1/tasks'),
  'getTask:contentValidation': badCaller('GET', `/api/v1/tasks/${UNKNOWN}`),
  'cancelTask:contentValidation': badCaller('DELETE', `/api/v1/tasks/${UNKNOWN}`),
  'listTaskArticles:contentValidation': badCaller('GET', `/api/v1/tasks/${UNKNOWN}/articles`),
  'getArticle:contentValidation': badCaller('GET', `/api/v1/articles/${UNKNOWN}`),
  'updateArticle:bodyTooLarge': tooLarge('PATCH', `/api/v1/articles/${UNKNOWN}`),
  'deleteArticle:contentValidation': badCaller('DELETE', `/api/v1/articles/${UNKNOWN}`),
  'bootstrapInitialize:bodyTooLarge': tooLarge('POST', '/api/v1/bootstrap/initialize'),
  'bootstrapPrompt:bodyTooLarge': tooLarge('POST', '/api/v1/bootstrap/prompt'),
  'bootstrapComplete:bodyTooLarge': tooLarge('POST', '/api/v1/bootstrap/complete'),
  'getBootstrapProject:invalidRequest': badCaller('GET', `/api/v2/projects/${UNKNOWN}`),
  'createTeam:bodyTooLarge': tooLarge('POST', '/api/v2/create_team'),
  'addMember:bodyTooLarge': tooLarge('POST', `/api/v2/teams/${UNKNOWN}/members`),
  'createTask:contentValidation': ({ h }) => h.call('POST', '/api/v1/tasks', { user_prompt: '' }),
  'createTask:contentRateLimit': async ({ h, task }) => {
    for (let i = 0; i < 5; i++) await task(`Busy ${i}`);
    return h.call('POST', '/api/v1/tasks', { user_prompt: 'One too many' });
  },
  'createTask:contentDatabase': outage('/api/v1/tasks', 'POST', { user_prompt: 'x' }),
  'listTasks:contentValidation': ({ h }) => h.call('GET', '/api/v1/tasks?limit=0'),
  'listTasks:contentDatabase': outage('/api/v1/tasks'),
  'getTask:taskNotFound': ({ h }) => h.call('GET', `/api/v1/tasks/${UNKNOWN}`),
  'getTask:contentDatabase': outage(`/api/v1/tasks/${UNKNOWN}`),
  'cancelTask:taskNotFound': ({ h }) => h.call('DELETE', `/api/v1/tasks/${UNKNOWN}`),
  'cancelTask:taskNotCancellable': async ({ h, completedTask }) =>
    h.call('DELETE', `/api/v1/tasks/${await completedTask()}`),
  'cancelTask:contentDatabase': outage(`/api/v1/tasks/${UNKNOWN}`, 'DELETE'),
  'listTaskArticles:taskNotFound': ({ h }) => h.call('GET', `/api/v1/tasks/${UNKNOWN}/articles`),
  'listTaskArticles:contentLlm': failedTask('LLM_ERROR'),
  'listTaskArticles:contentWorkflow': failedTask('WORKFLOW_ERROR'),
  'listTaskArticles:contentDatabase': outage(`/api/v1/tasks/${UNKNOWN}/articles`),
  'listArticles:contentValidation': ({ h }) => h.call('GET', '/api/v1/articles?page_size=101'),
  'listArticles:contentDatabase': outage('/api/v1/articles'),
  'getArticle:articleNotFound': ({ h }) => h.call('GET', `/api/v1/articles/${UNKNOWN}`),
  'getArticle:contentDatabase': outage(`/api/v1/articles/${UNKNOWN}`),
  'updateArticle:contentValidation': async ({ h, article }) =>
    h.call('PATCH', `/api/v1/articles/${await article()}`, {}),
  'updateArticle:articleNotFound': ({ h }) => h.call('PATCH', `/api/v1/articles/${UNKNOWN}`, { title: 'x' }),
  'updateArticle:contentDatabase': outage(`/api/v1/articles/${UNKNOWN}`, 'PATCH', { title: 'x' }),
  'deleteArticle:articleNotFound': ({ h }) => h.call('DELETE', `/api/v1/articles/${UNKNOWN}`),
  'deleteArticle:contentDatabase': outage(`/api/v1/articles/${UNKNOWN}`, 'DELETE'),

  'bootstrapInitialize:invalidRequest': ({ h, projectId }) =>
    h.call('POST', '/api/v1/bootstrap/initialize', { project_id: projectId, url: INIT.url }),
  'bootstrapInitialize:bootstrapProjectNotFound': ({ h }) =>
    h.call('POST', '/api/v1/bootstrap/initialize', { project_id: UNKNOWN, ...INIT }),
  'bootstrapInitialize:bootstrapRunning': async ({ h, projectId }) => {
    await h.call('POST', '/api/v1/bootstrap/initialize', { project_id: projectId, ...INIT });
    return h.call('POST', '/api/v1/bootstrap/initialize', { project_id: projectId, ...INIT });
  },
  'bootstrapPrompt:invalidRequest': ({ h }) => h.call('POST', '/api/v1/bootstrap/prompt', { project_id: 'nope' }),
  'bootstrapPrompt:bootstrapProjectNotFound': ({ h }) =>
    h.call('POST', '/api/v1/bootstrap/prompt', { project_id: UNKNOWN }),
  'bootstrapPrompt:bootstrapNotInitialized': ({ h, projectId }) =>
    h.call('POST', '/api/v1/bootstrap/prompt', { project_id: projectId }),
  'bootstrapComplete:invalidRequest': ({ h }) => h.call('POST', '/api/v1/bootstrap/complete', {}),
  'bootstrapComplete:bootstrapProjectNotFound': ({ h }) =>
    h.call('POST', '/api/v1/bootstrap/complete', { project_id: UNKNOWN }),
  'bootstrapComplete:bootstrapNotAnalyzed': async ({ h, bootstrapTo }) =>
    h.call('POST', '/api/v1/bootstrap/complete', { project_id: await bootstrapTo('initialized') }),
  'getBootstrapProject:bootstrapProjectNotFound': ({ h }) => h.call('GET', `/api/v2/projects/${UNKNOWN}`),

  'createTeam:invalidRequest': ({ h }) => h.call('POST', '/api/v2/create_team', { user_id: 'nope' }),
  'getMyTeam:invalidRequest': ({ h }) => h.call('GET', '/api/v2/teams/me'),
  'getMyTeam:teamNotFound': ({ h }) => h.call('GET', `/api/v2/teams/me?user_id=${UNKNOWN}`),
  'listMembers:invalidRequest': (ctx) => member(ctx, 'GET', ''),
  'listMembers:teamAccessDenied': (ctx) => member(ctx, 'GET', `?user_id=${UNKNOWN}`),
  'listMembers:teamNotFound': ({ h }) => h.call('GET', `/api/v2/teams/${UNKNOWN}/members?user_id=${UNKNOWN}`),
  'addMember:invalidRequest': (ctx) => member(ctx, 'POST', '', { email: 'b@example.com' }),
  'addMember:teamAccessDenied': (ctx) => member(ctx, 'POST', '', { user_id: UNKNOWN, email: 'b@example.com' }),
  'addMember:teamNotFound': ({ h }) =>
    h.call('POST', `/api/v2/teams/${UNKNOWN}/members`, { user_id: UNKNOWN, email: 'b@example.com' }),
  'addMember:memberExists': async (ctx) => {
    const a = await ctx.account('owner@example.com');
    return member(ctx, 'POST', '', { user_id: a.user_id, email: 'owner@example.com' });
  },
  'addMember:emailInOtherTeam': async (ctx) => {
    const other = await ctx.account('other@example.com');
    await ctx.h.call('POST', `/api/v2/teams/${other.team_id}/members`, {
      user_id: other.user_id,
      email: 'taken@example.com',
    });
    const a = await ctx.account('owner@example.com');
    return member(ctx, 'POST', '', { user_id: a.user_id, email: 'taken@example.com' });
  },
  'addMember:seatLimit': async (ctx) => {
    const a = await ctx.account('owner@example.com');
    await member(ctx, 'POST', '', { user_id: a.user_id, email: 'second@example.com' });
    return member(ctx, 'POST', '', { user_id: a.user_id, email: 'third@example.com' });
  },
  'removeMember:invalidRequest': (ctx) => member(ctx, 'DELETE', '/owner%40example.com'),
  'removeMember:teamAccessDenied': (ctx) => member(ctx, 'DELETE', `/owner%40example.com?user_id=${UNKNOWN}`),
  'removeMember:teamNotFound': ({ h }) =>
    h.call('DELETE', `/api/v2/teams/${UNKNOWN}/members/owner%40example.com?user_id=${UNKNOWN}`),
  'removeMember:memberNotFound': async (ctx) => {
    const a = await ctx.account('owner@example.com');
    return member(ctx, 'DELETE', `/ghost%40example.com?user_id=${a.user_id}`);
  },
  'removeMember:lastMember': async (ctx) => {
    const a = await ctx.account('owner@example.com');
    return member(ctx, 'DELETE', `/owner%40example.com?user_id=${a.user_id}`);
  },
};

export const DECLARED = SERVICES.flatMap((def) =>
  def.errors.map((row) => `${def.id}:${NAME_OF.get(row) ?? `unnamed ${row.status}`}`),
);

export function expectRow(key: string, reply: Reply): void {
  const name = key.split(':')[1] as ErrorName;
  const row: ErrorRow = ERRORS[name];
  const context = `${key}: ${reply.status} ${JSON.stringify(reply.body)}`;
  expect(reply.status, context).toBe(row.status);
  expect(errorSchema(row.shape).safeParse(reply.body).success, context).toBe(true);
  if (row.shape === 'content') {
    expect(reply.body.error.code, context).toBe(row.code);
    // The reference may add what it knows after the row's text (the failing task's own message excepted).
    if (name !== 'contentLlm' && name !== 'contentWorkflow') {
      expect(reply.body.error.message.startsWith(row.detail), context).toBe(true);
    }
  } else {
    expect(reply.body.detail.startsWith(row.detail), context).toBe(true);
  }
}

/** The context the cases run in, on a harness whose background delay is `STEP_S` seconds; `reset` before each case. */
export function servicesContext(h: Harness): Ctx & { reset(): Promise<void> } {
  const accounts = new Map<string, { user_id: string; team_id: string }>();
  const task = async (prompt = 'A task') => {
    const reply = await h.call('POST', '/api/v1/tasks', { user_prompt: prompt, max_words: 200 });
    expect(reply.status, JSON.stringify(reply.body)).toBe(202);
    return reply.body.task_id as string;
  };
  const completedTask = async () => {
    const id = await task();
    await h.advance(STEP_S);
    return id;
  };
  const ctx: Ctx & { reset(): Promise<void> } = {
    h,
    projectId: '',
    task,
    completedTask,
    article: async () => {
      const id = await completedTask();
      return (await h.call('GET', `/api/v1/tasks/${id}/articles`)).body.articles[0].article_id;
    },
    bootstrapTo: async (upTo) => {
      const body = { project_id: ctx.projectId };
      expect((await h.call('POST', '/api/v1/bootstrap/initialize', { ...body, ...INIT })).status).toBe(202);
      await h.advance(STEP_S);
      if (upTo === 'analyzed') {
        expect((await h.call('POST', '/api/v1/bootstrap/prompt', body)).status).toBe(202);
        await h.advance(STEP_S);
      }
      expect((await h.call('GET', `/api/v2/projects/${ctx.projectId}`)).body.status).toBe(upTo);
      return ctx.projectId;
    },
    account: async (email) => {
      const known = accounts.get(email);
      if (known) return known;
      const made = await createAccount(h, email);
      accounts.set(email, made);
      return made;
    },
    // Each case starts from a reset server (its accounts are forgotten with it).
    reset: async () => {
      expect((await h.call('POST', '/_reference/reset')).status).toBe(200);
      accounts.clear();
      ctx.projectId = (await h.api('GET', '/projects')).body.data[0].id;
    },
  };
  return ctx;
}
