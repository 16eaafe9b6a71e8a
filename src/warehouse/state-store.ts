import type { Kysely } from 'kysely';
import { type DayRange, mergeRanges } from '../core/days.js';
import { groupBy } from '../core/group.js';
import type { OpsDatabase } from './kysely/index.js';

export interface StateKey {
  teamId: string;
  stream: string;
  parentId: string;
}

/** What a parent has landed: the merged ranges of earlier API days, and the ranges landed today. */
export interface ParentState {
  before: DayRange[];
  today: DayRange[];
}

/**
 * ops.sync_state: per (team, stream, parent) the finished day ranges, merged, with the ranges landed by a sync of
 * the current API day kept apart (`api_day`), so a re-run on the same day can plan from the state as the day began.
 * `markFinished` is called inside the loader's transaction, so a unit's rows and its state commit together.
 */
export class StateStore {
  constructor(private readonly db: Kysely<OpsDatabase>) {}

  /**
   * The state of every parent of a stream (one query per stream, not per parent), or of one parent, as seen on API
   * day `today`: ranges of other days count as `before`.
   */
  async stateByParent(
    teamId: string,
    stream: string,
    today: string,
    parentId?: string,
  ): Promise<Map<string, ParentState>> {
    return this.stateOf(teamId, stream, today, parentId === undefined ? undefined : [parentId]);
  }

  /**
   * The state of every stream of a team, by stream and then parent, as `stateByParent` sees it: one query for a
   * sync's plan rather than one per stream (some 27 streams, each a statement of its own before:
   * docs/lab/2026-11-code-constants.md#the-sync).
   */
  async stateByStream(teamId: string, today: string): Promise<Map<string, Map<string, ParentState>>> {
    const rows = await this.rowsOf(teamId).orderBy('stream').orderBy('parent_id').orderBy('range_from').execute();
    const byStream = groupBy(rows, (row) => row.stream);
    return new Map([...byStream].map(([stream, streamRows]) => [stream, parentStates(streamRows, today)]));
  }

  private async stateOf(
    teamId: string,
    stream: string,
    today: string,
    parents: readonly string[] | undefined,
  ): Promise<Map<string, ParentState>> {
    let query = this.rowsOf(teamId).where('stream', '=', stream);
    if (parents !== undefined) query = query.where('parent_id', 'in', parents);
    return parentStates(await query.orderBy('parent_id').orderBy('range_from').execute(), today);
  }

  /** The team's state rows, the columns `parentStates` reads. */
  private rowsOf(teamId: string) {
    return this.db
      .selectFrom('ops.sync_state')
      .select(['stream', 'parent_id', 'range_from', 'range_to', 'api_day'])
      .where('team_id', '=', teamId);
  }

  /** Every finished range of every parent of a stream, whatever day landed it. */
  async finishedByParent(teamId: string, stream: string, parentId?: string): Promise<Map<string, DayRange[]>> {
    const state = await this.stateByParent(teamId, stream, '', parentId);
    return new Map([...state].map(([id, s]) => [id, mergeRanges([...s.before, ...s.today])]));
  }

  async finished(key: StateKey): Promise<DayRange[]> {
    return (await this.finishedByParent(key.teamId, key.stream, key.parentId)).get(key.parentId) ?? [];
  }

  /**
   * Adds `range`, landed by a sync of API day `apiDay`, to the parent's state: today's ranges merged apart, the
   * ranges of every other day folded into the merged ranges of earlier days.
   */
  async markFinished(key: StateKey, range: DayRange, runId: string, apiDay: string): Promise<void> {
    await this.markFinishedMany([{ key, range }], runId, apiDay);
  }

  /**
   * `markFinished` for every unit of a loader batch at once: one read, one delete and one insert per stream, however
   * many units the batch holds (four statements per unit made the state the landing's slowest part at scale).
   */
  async markFinishedMany(
    marks: ReadonlyArray<{ key: StateKey; range: DayRange }>,
    runId: string,
    apiDay: string,
  ): Promise<void> {
    const byStream = new Map<string, { teamId: string; stream: string; ranges: Map<string, DayRange[]> }>();
    for (const { key, range } of marks) {
      const id = `${key.teamId}\u0000${key.stream}`;
      const group = byStream.get(id) ?? { teamId: key.teamId, stream: key.stream, ranges: new Map() };
      group.ranges.set(key.parentId, [...(group.ranges.get(key.parentId) ?? []), range]);
      byStream.set(id, group);
    }
    const now = new Date();
    for (const { teamId, stream, ranges } of byStream.values()) {
      const parents = [...ranges.keys()];
      const current = await this.stateOf(teamId, stream, apiDay, parents);
      await this.db
        .deleteFrom('ops.sync_state')
        .where('team_id', '=', teamId)
        .where('stream', '=', stream)
        .where('parent_id', 'in', parents)
        .execute();
      const row = (parentId: string, r: DayRange, day: string | null) => ({
        team_id: teamId,
        stream,
        parent_id: parentId,
        range_from: r.from,
        range_to: r.to,
        last_run_id: runId,
        updated_at: now,
        api_day: day,
      });
      const rows = parents.flatMap((parentId) => {
        const state = current.get(parentId) ?? { before: [], today: [] };
        const today = mergeRanges([...state.today, ...(ranges.get(parentId) ?? [])]);
        return [...state.before.map((r) => row(parentId, r, null)), ...today.map((r) => row(parentId, r, apiDay))];
      });
      await this.db.insertInto('ops.sync_state').values(rows).execute();
    }
  }
}

/** DATE columns come back as a Date at UTC midnight. */
export function toDay(value: unknown): string {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  return String(value).slice(0, 10);
}

/** A stream's state rows (ordered by parent, then range) as each parent's ranges, before `today` and of it, merged. */
function parentStates(
  rows: ReadonlyArray<{ parent_id: string; range_from: unknown; range_to: unknown; api_day: unknown }>,
  today: string,
): Map<string, ParentState> {
  const out = new Map<string, ParentState>();
  for (const row of rows) {
    const state = out.get(row.parent_id) ?? { before: [], today: [] };
    const range = { from: toDay(row.range_from), to: toDay(row.range_to) };
    if (row.api_day !== null && toDay(row.api_day) === today) state.today.push(range);
    else state.before.push(range);
    out.set(row.parent_id, state);
  }
  for (const state of out.values()) {
    state.before = mergeRanges(state.before);
    state.today = mergeRanges(state.today);
  }
  return out;
}
