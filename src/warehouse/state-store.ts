import type { Kysely } from 'kysely';
import { type DayRange, mergeRanges } from './day-ranges.js';
import type { OpsDatabase } from './kysely/index.js';

export interface StateKey {
  teamId: string;
  stream: string;
  parentId: string;
}

/**
 * ops.sync_state: per (team, stream, parent) the merged finished day ranges. `markFinished` is called inside the
 * loader's transaction, so a unit's rows and its state commit together.
 */
export class StateStore {
  constructor(private readonly db: Kysely<OpsDatabase>) {}

  /** Finished ranges of every parent of a stream (one query per stream, not per parent), or of one parent. */
  async finishedByParent(teamId: string, stream: string, parentId?: string): Promise<Map<string, DayRange[]>> {
    let query = this.db
      .selectFrom('ops.sync_state')
      .select(['parent_id', 'range_from', 'range_to'])
      .where('team_id', '=', teamId)
      .where('stream', '=', stream);
    if (parentId !== undefined) query = query.where('parent_id', '=', parentId);
    const rows = await query.orderBy('parent_id').orderBy('range_from').execute();
    const out = new Map<string, DayRange[]>();
    for (const row of rows) {
      const list = out.get(row.parent_id) ?? [];
      list.push({ from: toDay(row.range_from), to: toDay(row.range_to) });
      out.set(row.parent_id, list);
    }
    return out;
  }

  async finished(key: StateKey): Promise<DayRange[]> {
    return (await this.finishedByParent(key.teamId, key.stream, key.parentId)).get(key.parentId) ?? [];
  }

  /** Adds `range` to the parent's finished ranges and stores them merged. */
  async markFinished(key: StateKey, range: DayRange, runId: string): Promise<void> {
    const current = await this.finished(key);
    const merged = mergeRanges([...current, range]);
    await this.clear(key);
    const now = new Date();
    await this.db
      .insertInto('ops.sync_state')
      .values(
        merged.map((r) => ({
          team_id: key.teamId,
          stream: key.stream,
          parent_id: key.parentId,
          range_from: r.from,
          range_to: r.to,
          last_run_id: runId,
          updated_at: now,
        })),
      )
      .execute();
  }

  async clear(key: StateKey): Promise<void> {
    await this.db
      .deleteFrom('ops.sync_state')
      .where('team_id', '=', key.teamId)
      .where('stream', '=', key.stream)
      .where('parent_id', '=', key.parentId)
      .execute();
  }

  /** --full-refresh: forget a team's state for the given streams (rows are replaced as units land again). */
  async forget(teamId: string, streams: readonly string[]): Promise<void> {
    if (streams.length === 0) return;
    await this.db.deleteFrom('ops.sync_state').where('team_id', '=', teamId).where('stream', 'in', streams).execute();
  }
}

/** DATE columns come back as a Date at UTC midnight. */
export function toDay(value: unknown): string {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  return String(value).slice(0, 10);
}
