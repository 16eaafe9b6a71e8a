/**
 * Prompt wire shapes: the list/get view (snake_case, lowercase prompt types, metrics from the world) and the
 * camelCase shapes of create and update (capitalized prompt types).
 */
import { promptTypeToCamel } from '../../api/index.js';
import { currentPromptType } from '../state/projects.js';
import type { World } from '../world/api.js';
import type { ProjectConfig, PromptConfig } from '../world/types.js';

export function promptView(world: World, project: ProjectConfig, prompt: PromptConfig, now: number) {
  const summary = world.promptSummary(project, prompt.id, now);
  return {
    id: prompt.id,
    project_id: project.id,
    content: prompt.content,
    prompt_type: currentPromptType(prompt),
    topic_id: prompt.topic_id,
    country: prompt.country,
    visibility: summary.visibility,
    sentiment: summary.sentiment,
    position: summary.position,
    volume: summary.volume,
    cvr: summary.cvr,
    intent: prompt.intent ?? summary.intent,
    trend: summary.trend,
    created_at: prompt.created_at,
  };
}

export function promptCamelView(world: World, project: ProjectConfig, prompt: PromptConfig, now: number) {
  const view = promptView(world, project, prompt, now);
  return {
    id: view.id,
    projectId: view.project_id,
    content: view.content,
    promptType: promptTypeToCamel(view.prompt_type),
    topicId: view.topic_id,
    country: view.country,
    visibility: view.visibility,
    sentiment: view.sentiment,
    position: view.position,
    volume: view.volume,
    cvr: view.cvr,
    intent: view.intent,
    trend: view.trend,
    createdAt: view.created_at,
  };
}

export function promptCreatedView(project: ProjectConfig, prompt: PromptConfig) {
  return {
    id: prompt.id,
    projectId: project.id,
    content: prompt.content,
    promptType: promptTypeToCamel(currentPromptType(prompt)),
    topicId: prompt.topic_id,
    country: prompt.country,
    createdAt: prompt.created_at,
  };
}
