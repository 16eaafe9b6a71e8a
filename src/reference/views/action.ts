/** Action wire shape: the world's ActionConfig joined with the texts the server keeps. */
import type { ActionDetails } from '../state/projects.js';
import type { ActionConfig } from '../world/types.js';

export function actionView(action: ActionConfig, details: ActionDetails) {
  return {
    id: action.id,
    priority: details.priority,
    title: details.title,
    description: details.description,
    category: action.category,
    effort: details.effort,
    expected_impact_min: action.expected_impact_min,
    expected_impact_max: action.expected_impact_max,
    status: action.status,
    targets: action.targets,
    execution: details.execution,
    group: details.group,
    depends_on: details.depends_on,
    created_at: details.created_at,
    updated_at: details.updated_at,
    /** Extension: when the action reached `completed`. */
    completed_at: action.completed_at,
  };
}
