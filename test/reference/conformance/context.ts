/**
 * What a conformance case runs against: one reference server on port 0, a premium admin key of the demo team (so
 * the cases never meet the rate limit by accident), and the ids the cases need. Every call is real HTTP.
 */
import { control, type ReferenceServer } from '../../../src/reference/index.js';
import { call, firstProject, type Reply } from '../support.js';

export interface Ctx {
  server: ReferenceServer;
  /** A premium admin key of the demo team. */
  key: string;
  projectId: string;
  /** `/projects/{projectId}` */
  p: string;
  promptId: string;
  topicId: string;
  /** The demo team's second project (it has AI-discovered pending competitors). */
  secondProjectId: string;
  req(method: string, path: string, opts?: { body?: unknown; key?: string | null }): Promise<Reply>;
  /** A text no other case uses. */
  unique(prefix: string): string;
  /** A new key of the demo team. */
  mint(opts?: { role?: 'admin' | 'viewer'; tier?: 'standard' | 'premium' }): string;
}

/** A case: the HTTP exchange whose reply the table's harness checks. */
export type Run = (ctx: Ctx) => Promise<Reply>;

export async function conformanceContext(server: ReferenceServer): Promise<Ctx> {
  const mint: Ctx['mint'] = (opts = {}) =>
    control.mintKey(server.state, {
      apiKey: server.demoApiKey,
      role: opts.role ?? 'admin',
      tier: opts.tier ?? 'premium',
    }).api_key;
  const key = mint();
  const first = await firstProject(server);
  const projects = await call(server, 'GET', '/projects', { key });
  let n = 0;
  return {
    server,
    key,
    projectId: first.projectId,
    p: `/projects/${first.projectId}`,
    promptId: first.promptId,
    topicId: first.topicId,
    secondProjectId: projects.body.data[1].id,
    req: (method, path, opts = {}) =>
      call(server, method, path, { body: opts.body, key: opts.key === undefined ? key : opts.key }),
    unique: (prefix) => `${prefix} ${++n}`,
    mint,
  };
}
