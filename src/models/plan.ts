import type { Clock } from '../core/clock.js';
import { type DayRange, maxDay } from '../core/days.js';
import type { Database } from '../warehouse/duckdb.js';
import { compileModel } from './compile.js';
import { reachable } from './graph.js';
import { readHorizon } from './horizon.js';
import { plannedRanges } from './intervals.js';
import { modelStart, reprocessedDays } from './materialize/incremental-by-time-range.js';
import { Relations } from './relations.js';
import { timeRangeAncestors, upstreamDays } from './run-node.js';
import { selectModels } from './selection.js';
import { processedDays, readModelStates } from './state.js';
import type { ModelKind, Project } from './types.js';

export interface PlanEntry {
  id: string;
  kind: ModelKind;
  /** new: never built; modified: SQL or config changed since the last build; unchanged. */
  change: 'new' | 'modified' | 'unchanged';
  /** incremental_by_time_range: the days a build would process. */
  missing?: DayRange[];
  /** Unchanged itself, but these ancestors are new or modified (SQLMesh's "indirectly modified"). */
  upstreamChanged?: string[];
  note?: string;
}

/** What a build would do, without building: fingerprints against ops.model_state, and missing intervals. */
export async function planProject(
  db: Database,
  project: Project,
  options: { select?: string[]; exclude?: string[]; start?: string; end?: string; clock: Clock },
): Promise<PlanEntry[]> {
  const exec = db.session;
  const states = await readModelStates(exec);
  const relations = await Relations.read(exec);
  const selected = selectModels(project, options.select ?? [], options.exclude ?? [], states);
  // The days a build would process: up to the same horizon (an --end after it is brought back to it).
  const { end } = await readHorizon(exec, relations, options.clock, options.end);
  const entries: PlanEntry[] = [];
  const written = new Map<string, DayRange[]>();
  for (const id of project.graph.order.filter((m) => selected.has(m))) {
    const model = project.models.get(id);
    if (!model) continue;
    const state = states.get(id);
    const change = !state ? 'new' : state.fingerprint === model.fingerprint ? 'unchanged' : 'modified';
    const entry: PlanEntry = { id, kind: model.config.kind, change };
    if (model.config.kind === 'incremental_by_time_range') {
      let start: string | undefined;
      try {
        start = await modelStart(exec, model, compileModel(project, model).sql, end, state?.start_date, {
          relations,
          ancestors: timeRangeAncestors(project, id),
        });
      } catch {
        entry.note = 'first day unknown until its sources exist';
      }
      const exists = relations.kind(model.schema, model.name);
      const done = exists ? await processedDays(exec, id, relations) : new Set<string>();
      if (options.start) {
        // What `build --start` would reprocess: every day from there, done or not.
        entry.missing = plannedRanges(maxDay(options.start, model.config.start ?? options.start), end, new Set(), 0, 0);
      } else if (start) {
        const more = await reprocessedDays(exec, model, relations, upstreamDays(project, id, written), done);
        entry.missing = plannedRanges(start, end, done, model.config.lookback, 0, more);
      }
      if (entry.missing) written.set(id, entry.missing);
      if (change === 'modified') {
        entry.note = 'forward-only: new intervals use the new SQL; --full-refresh rebuilds all of them';
      }
    } else if (model.config.kind === 'scd2' && change === 'modified') {
      entry.note = 'history kept: the next snapshot uses the new SQL';
    }
    if (state && state.kind === 'scd2' && model.config.kind !== 'scd2') {
      entry.note = 'kind changed from scd2: the build refuses to replace the history table (drop it by hand)';
    }
    const changedUpstream = [...reachable(project.graph.parents, id)].filter(
      (p) => states.get(p)?.fingerprint !== project.models.get(p)?.fingerprint,
    );
    if (change === 'unchanged' && changedUpstream.length) {
      entry.upstreamChanged = changedUpstream.sort();
    }
    entries.push(entry);
  }
  return entries;
}
