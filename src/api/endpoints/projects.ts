/** GET /projects and GET /projects/{project_id}. Envelope A. */
import { defineEndpoint } from '../endpoint.js';
import { ProjectParams } from '../schemas/common.js';
import { Project, ProjectList } from '../schemas/projects.js';

const tag = 'projects';

export const projectEndpoints = {
  listProjects: defineEndpoint({
    id: 'listProjects',
    service: 'public',
    tag,
    method: 'GET',
    path: '/projects',
    summary: 'Projects of the key’s team, oldest first (brand_aliases empty in this view).',
    envelope: 'A',
    data: ProjectList,
  }),
  getProject: defineEndpoint({
    id: 'getProject',
    service: 'public',
    tag,
    method: 'GET',
    path: '/projects/{project_id}',
    summary: 'One project with its brand aliases filled.',
    params: ProjectParams,
    envelope: 'A',
    data: Project,
  }),
} as const;
