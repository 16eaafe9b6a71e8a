import { catalogue, Project } from '../../api/index.js';
import { dataRequest, defineStream } from '../declare.js';
import { extraOf } from '../rows.js';
import { projectParents } from './parents.js';

/** raw.projects from the single-project view (aliases filled). */
export const projectsStream = defineStream({
  name: 'projects',
  grain: 'snapshot',
  parents: projectParents,
  requests: [
    dataRequest({
      endpoint: catalogue.getProject,
      params: ({ parent }) => ({ path: { project_id: parent.id } }),
      into: { 'raw.projects': ({ parent }) => ({ equals: { id: parent.id } }) },
      rows: (data) => ({ 'raw.projects': [{ ...data, _extra: extraOf(data, Project) }] }),
    }),
  ],
});
