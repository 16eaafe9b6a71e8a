/**
 * Ground truth on the control plane (`/_reference/truth/…`): what the world planted, computed from its model, for
 * tests and for anyone checking an estimator against it. Not part of the real service.
 */
import { dayFromNumber, dayOfInstant, isCalendarDay } from '../../core/days.js';
import { fail } from '../net/http-error.js';
import type { ReferenceState } from '../server/reference-state.js';
import type { ProjectRecord } from '../state/projects.js';
import { lastCompleteDay } from '../world/truth.js';

/** Longest range one visibility call computes (the model is evaluated per answer cell). */
const MAX_RANGE_DAYS = 400;

function projectsOf(state: ReferenceState, projectId: string | undefined): ProjectRecord[] {
  if (projectId === undefined) return state.projects.all();
  const record = state.projects.get(projectId);
  if (!record) throw fail(404, `Unknown project_id ${projectId}`);
  return [record];
}

export function truthActions(state: ReferenceState, projectId?: string) {
  const now = state.sim.now();
  return {
    now: new Date(now).toISOString(),
    last_complete_day: dayFromNumber(lastCompleteDay(now)),
    actions: projectsOf(state, projectId).flatMap((p) => state.world.truthActions(p.config, now)),
  };
}

export function truthEvents(state: ReferenceState, projectId?: string) {
  const now = state.sim.now();
  return { events: projectsOf(state, projectId).flatMap((p) => state.world.truthEvents(p.config, now)) };
}

/** Expected visibility of one project; the range defaults to the project's first day through today. */
export function truthVisibility(
  state: ReferenceState,
  query: { project_id?: string; date_from?: string; date_to?: string; by?: string },
) {
  if (query.project_id === undefined) throw fail(400, 'project_id is required');
  const [record] = projectsOf(state, query.project_id);
  if (!record) throw fail(404, `Unknown project_id ${query.project_id}`);
  const today = dayFromNumber(dayOfInstant(state.sim.now()));
  for (const key of ['date_from', 'date_to'] as const) {
    const v = query[key];
    if (v !== undefined && !isCalendarDay(v)) throw fail(400, `${key} must be a YYYY-MM-DD day`);
  }
  const created = record.config.created_at.slice(0, 10);
  const firstPrompt = record.config.prompts.map((p) => p.created_at.slice(0, 10)).sort()[0] ?? created;
  const from = query.date_from ?? (firstPrompt < created ? firstPrompt : created);
  const to = query.date_to !== undefined && query.date_to < today ? query.date_to : today;
  if (from > to) throw fail(400, 'date_from must be on or before date_to (and today)');
  if (query.by !== undefined && query.by !== 'prompt') throw fail(400, "by must be 'prompt' (or absent)");
  if (Date.parse(to) - Date.parse(from) > MAX_RANGE_DAYS * 86_400_000) {
    throw fail(400, `a range of at most ${MAX_RANGE_DAYS} days; narrow date_from/date_to`);
  }
  return {
    project_id: query.project_id,
    date_from: from,
    date_to: to,
    rows: state.world.truthVisibility(record.config, { from, to }, query.by === 'prompt'),
  };
}
