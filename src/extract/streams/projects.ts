import { AliasList, BrandAlias, catalogue, Project } from '../../api/index.js';
import { fetchList, fetchOne } from '../fetch.js';
import { extraOf } from '../rows.js';
import type { StreamDef } from '../types.js';
import { projectParents } from './parents.js';

/** raw.projects from the single-project view (aliases filled). */
export const projectsStream: StreamDef = {
  name: 'projects',
  tables: ['raw.projects'],
  grain: 'snapshot',
  parents: projectParents,
  estimate: () => 1,
  async fetch(ctx, parent) {
    const { data, rejected } = await fetchOne(ctx, catalogue.getProject, { path: { project_id: parent.id } });
    const rows = data ? [{ ...data, _extra: extraOf(data, Project) }] : [];
    return { loads: [{ table: 'raw.projects', partition: { equals: { id: parent.id } }, rows }], rejected };
  },
};

/** raw.project_aliases: one row per alias, with the list's limit and remaining capacity. */
export const projectAliasesStream: StreamDef = {
  name: 'project_aliases',
  tables: ['raw.project_aliases'],
  grain: 'snapshot',
  parents: projectParents,
  estimate: () => 1,
  async fetch(ctx, parent) {
    const { items, data, rejected } = await fetchList(
      ctx,
      catalogue.listAliases,
      { path: { project_id: parent.id } },
      BrandAlias,
      (raw) => (raw as { aliases?: unknown } | undefined)?.aliases,
    );
    const listExtra = data ? extraOf(data, AliasList) : null;
    const rows = items.map((alias) => ({
      project_id: parent.id,
      brand_name: data?.brand_name ?? null,
      name: alias.name,
      match_type: alias.match_type,
      alias_limit: data?.limit ?? null,
      remaining: data?.remaining ?? null,
      _extra: mergeExtra(extraOf(alias, BrandAlias), listExtra),
    }));
    return {
      loads: [{ table: 'raw.project_aliases', partition: { equals: { project_id: parent.id } }, rows }],
      rejected,
    };
  },
};

export function mergeExtra(
  item: Record<string, unknown> | null,
  list: Record<string, unknown> | null,
): Record<string, unknown> | null {
  if (!item && !list) return null;
  return { ...(item ?? {}), ...(list ? { _list: list } : {}) };
}
