import { dayOf } from '../rows.js';
import type { Discovery, Parent, SyncSettings } from '../types.js';

/** Prompt types whose answers are collected (or were, before a prompt was switched off). */
const TRACKED_TYPES = new Set(['active', 'inactive']);

export function teamParent(): Parent[] {
  return [{ id: 'team' }];
}

export function projectParents(discovery: Discovery): Parent[] {
  return discovery.projects.map(({ project, prompts }) => {
    const created = [project.created_at, ...prompts.map((p) => p.created_at)].map(dayOf).sort()[0];
    return { id: project.id, projectId: project.id, start: created };
  });
}

/** Prompts with answers: active and inactive ones. A prompt's history starts the day it was created. */
export function promptParents(discovery: Discovery, _settings?: SyncSettings): Parent[] {
  return discovery.projects.flatMap(({ project, prompts }) =>
    prompts
      .filter((p) => TRACKED_TYPES.has(p.prompt_type))
      .map((p) => ({
        id: p.id,
        projectId: project.id,
        promptId: p.id,
        start: dayOf(p.created_at),
        promptType: p.prompt_type,
      })),
  );
}

/** `{ project_id }` of a project parent (its path parameters and its partition). */
export function projectKey(parent: Parent): { project_id: string } {
  return { project_id: parent.projectId ?? parent.id };
}

/** `{ project_id, prompt_id }` of a prompt parent (its path parameters, and its partition's key). */
export function promptPath(parent: Parent): { project_id: string; prompt_id: string } {
  return { project_id: parent.projectId ?? '', prompt_id: parent.promptId ?? parent.id };
}
