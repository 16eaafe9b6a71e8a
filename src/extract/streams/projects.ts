import { catalogue, Project } from '../../api/index.js';
import { fetchOne } from '../fetch.js';
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
