import { catalogue, type Project, Project as ProjectSchema, Prompt as PromptSchema } from '../api/index.js';
import type { ApiClient } from '../client/api-client.js';
import { isVwhError, shown, VwhError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import { salvage } from './rows.js';
import type { Discovery, ProjectPrompts, Rejection } from './types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The API's own reason for a selected project the list does not hold (403 foreign team, 404 unknown). */
async function whyUnreachable(client: ApiClient, name: string, sig: { signal?: AbortSignal }): Promise<string> {
  if (!UUID.test(name)) return 'no project of this team has this id or name';
  try {
    await client.call(catalogue.getProject, { path: { project_id: name }, ...sig });
    return 'not in the projects this key can list';
  } catch (error) {
    if (isVwhError(error) && error.code === 'HTTP_CLIENT_ERROR') return error.message;
    throw error;
  }
}

/**
 * GET /projects, then GET prompts of each selected project. A 401 throws (exit 3); a project the key cannot see
 * (403/404) is reported and left out, the others go on.
 */
export async function discover(
  client: ApiClient,
  selection: readonly string[] | undefined,
  logger: Logger,
  signal?: AbortSignal,
): Promise<Discovery> {
  const sig = signal ? { signal } : {};
  const listed = await client.call(catalogue.listProjects, sig);
  // Drift in some items costs those items only, as for any list: the ones that fit are synced.
  const split = listed.ok ? { good: listed.data, bad: [] } : salvage(listed.raw, ProjectSchema);
  if (!split) {
    throw new VwhError(
      'SCHEMA_DRIFT',
      `GET /projects answered a body that does not fit the contract (${describeIssues(listed.issues)}); nothing to sync`,
      { details: { issues: listed.issues } },
    );
  }
  const rejected: Rejection[] = split.bad.map((b) => ({
    endpoint: 'listProjects',
    payload: b.payload,
    issues: b.issues,
  }));
  for (const r of rejected) {
    logger.warn('project does not fit the contract; quarantined in ops.rejected_rows', {
      project: idOf(r.payload),
      fields: describeIssues(r.issues),
    });
  }
  let requests = 1;
  const unreachable: Discovery['unreachable'] = [];
  const fitting: Project[] = split.good;
  let projects: Project[] = fitting;
  if (selection && selection.length > 0) {
    const wanted = new Set(selection);
    projects = fitting.filter((p) => wanted.has(p.id) || wanted.has(p.name));
    for (const name of selection) {
      if (fitting.some((p) => p.id === name || p.name === name)) continue;
      // a name as given, cut when long: a 10 kB --projects value is not echoed whole in every message
      const given = name.length > 80 ? shown(name) : name;
      unreachable.push({ project: given, reason: await whyUnreachable(client, name, sig) });
      requests += UUID.test(name) ? 1 : 0;
    }
  }
  const out: ProjectPrompts[] = [];
  for (const project of projects) {
    try {
      requests++;
      const res = await client.call(catalogue.listPrompts, { path: { project_id: project.id }, ...sig });
      if (res.ok) {
        out.push({ project, prompts: res.data.prompts, total: res.data.total, rejected: [] });
        continue;
      }
      const raw = res.raw as { prompts?: unknown; total?: unknown } | undefined;
      const split = salvage(raw?.prompts, PromptSchema);
      const rejected = split?.bad.length
        ? split.bad.map((b) => ({ endpoint: 'listPrompts', payload: b.payload, issues: b.issues }))
        : [{ endpoint: 'listPrompts', payload: res.raw ?? res.body, issues: res.issues }];
      out.push({
        project,
        prompts: split?.good ?? [],
        total: typeof raw?.total === 'number' ? raw.total : 0,
        rejected,
      });
    } catch (error) {
      if (isVwhError(error) && error.code === 'HTTP_CLIENT_ERROR') {
        unreachable.push({ project: project.id, reason: error.message });
        logger.warn('project not readable with this key; skipped', { project: project.id, reason: error.message });
        continue;
      }
      throw error;
    }
  }
  return { projects: out, unreachable, rejected, requests };
}

/** `name: expected string, received number; …`: the fields a drifted item got wrong, for logs and errors. */
export function describeIssues(issues: unknown): string {
  if (!Array.isArray(issues)) return 'no detail';
  return issues
    .slice(0, 5)
    .map(
      (i: { path?: PropertyKey[]; message?: string }) =>
        `${(i.path ?? []).map(String).join('.') || '(item)'}: ${i.message ?? 'invalid'}`,
    )
    .join('; ');
}

function idOf(payload: unknown): string | undefined {
  const id = payload && typeof payload === 'object' ? (payload as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : undefined;
}
