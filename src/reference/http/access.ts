/** Team scoping of a project (spec "Authentication" 7) and the admin-only checks. */
import { ERRORS } from '../../api/index.js';
import { rowError } from '../net/http-error.js';
import type { ReferenceState } from '../server/reference-state.js';
import type { ProjectRecord } from '../state/projects.js';
import type { ApiContext } from './env.js';

export function loadProject(state: ReferenceState, c: ApiContext): ProjectRecord {
  const id = c.req.param('project_id') ?? '';
  const project = state.projects.get(id.toLowerCase());
  if (!project) throw rowError(ERRORS.projectNotFound);
  if (project.config.team_id !== c.get('team').id) throw rowError(ERRORS.foreignProject);
  return project;
}

export function requireAdmin(c: ApiContext): void {
  if (c.get('key').role !== 'admin') throw rowError(ERRORS.readOnlyKey);
}
