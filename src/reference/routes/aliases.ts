/** Brand aliases: list, add, update, delete; errors carry the `ALIAS_*` codes. Limit 20, text 1-100 characters. */
import type { Hono } from 'hono';
import type * as z from 'zod';
import { ALIAS_LIMIT, ALIAS_MAX_LENGTH, ERRORS, type ErrorRow } from '../../api/index.js';
import type { ApiEnv } from '../http/env.js';
import { route } from '../http/route.js';
import { rowError } from '../net/http-error.js';
import type { ReferenceState } from '../server/reference-state.js';
import type { ProjectRecord } from '../state/projects.js';
import type { AliasConfig } from '../world/types.js';

function aliasText(value: string | undefined): string {
  const text = (value ?? '').trim();
  if (text === '') throw rowError(ERRORS.aliasEmpty);
  if (text.length > ALIAS_MAX_LENGTH) throw rowError(ERRORS.aliasTooLong);
  return text;
}

/** A missing or non-string alias field is ALIAS_EMPTY; other schema failures (match_type) are invalidRequest. */
function aliasIssue(issues: readonly z.core.$ZodIssue[]): ErrorRow | undefined {
  const field = String(issues[0]?.path[0] ?? '');
  return ['alias', 'original_alias', 'new_alias'].includes(field) ? ERRORS.aliasEmpty : undefined;
}

function listView(project: ProjectRecord) {
  const aliases = project.config.aliases.map((a) => ({ name: a.name, match_type: a.match_type }));
  return {
    project_id: project.config.id,
    brand_name: project.config.brand_name,
    aliases,
    limit: ALIAS_LIMIT,
    remaining: ALIAS_LIMIT - aliases.length,
  };
}

/** Add/update/delete answer: the list view plus one `next_actions` entry (the contract's NextAction). */
function changedView(project: ProjectRecord) {
  return {
    ...listView(project),
    next_actions: [
      {
        action: 'list_aliases',
        endpoint_id: 'listAliases',
        method: 'GET',
        path: `/projects/${project.config.id}/aliases`,
        description: 'List the aliases of this project',
      },
    ],
  };
}

function indexOf(project: ProjectRecord, name: string): number {
  return project.config.aliases.findIndex((a) => a.name.toLowerCase() === name.toLowerCase());
}

export function registerAliases(api: Hono<ApiEnv>, state: ReferenceState): void {
  route(api, state, 'listAliases', ({ project }) => listView(project));

  route(
    api,
    state,
    'addAlias',
    ({ project, body }) => {
      const name = aliasText(body.alias);
      if (indexOf(project, name) >= 0) throw rowError(ERRORS.aliasDuplicate);
      if (project.config.aliases.length >= ALIAS_LIMIT) throw rowError(ERRORS.aliasLimit);
      const alias: AliasConfig = { name, match_type: body.match_type, created_at: state.nowIso() };
      state.projects.update(project, (cfg) => ({ ...cfg, aliases: [...cfg.aliases, alias] }));
      return changedView(project);
    },
    { invalidBody: aliasIssue },
  );

  route(
    api,
    state,
    'updateAlias',
    ({ project, body }) => {
      const original = aliasText(body.original_alias);
      const renamed = aliasText(body.new_alias);
      const at = indexOf(project, original);
      const current = project.config.aliases[at];
      if (!current) throw rowError(ERRORS.aliasNotFound);
      const clash = indexOf(project, renamed);
      if (clash >= 0 && clash !== at) throw rowError(ERRORS.aliasDuplicate);
      const next: AliasConfig = { ...current, name: renamed, match_type: body.match_type ?? current.match_type };
      state.projects.update(project, (cfg) => ({ ...cfg, aliases: cfg.aliases.map((a, i) => (i === at ? next : a)) }));
      return changedView(project);
    },
    { invalidBody: aliasIssue },
  );

  route(
    api,
    state,
    'deleteAlias',
    ({ project, query }) => {
      const name = aliasText(query.alias);
      const at = indexOf(project, name);
      if (at < 0) throw rowError(ERRORS.aliasNotFound);
      state.projects.update(project, (cfg) => ({ ...cfg, aliases: cfg.aliases.filter((_, i) => i !== at) }));
      return changedView(project);
    },
    { invalidQuery: ERRORS.aliasEmpty },
  );
}
