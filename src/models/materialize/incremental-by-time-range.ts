import { VwhError } from '../../core/errors.js';
import { type Executor, relationKind } from '../executor.js';
import { addDays, type DayRange, daysBetween, maxDay, plannedRanges, sqlTimestamp } from '../intervals.js';
import { ident, qualified, substituteMacros } from '../sql-text.js';
import { clearIntervals, markProcessed, processedDays, readModelStates } from '../state.js';
import { dropRelation } from '../swap.js';
import type { Model } from '../types.js';
import type { MaterializeContext, Materializer } from './types.js';

/**
 * `incremental_by_time_range`: daily intervals kept in ops.model_intervals. Only days not yet processed run (plus
 * `lookback` days before each missing stretch); `--start/--end` reprocesses a range. Each batch deletes its days and
 * inserts the query's rows for them, and records them, in one transaction: a failed batch leaves no trace.
 */
export const materializeIncrementalByTimeRange: Materializer = async (ctx) => {
  const { model, exec, runId, clock, fullRefresh } = ctx;
  const timeColumn = ident(model.config.timeColumn as string);
  const rel = qualified(model.schema, model.name);
  await exec.run(`CREATE SCHEMA IF NOT EXISTS ${ident(model.schema)}`);

  if (fullRefresh) {
    await exec.transaction(async () => {
      await dropRelation(exec, model.schema, model.name);
      await clearIntervals(exec, model.id);
    });
  }
  // --start reprocesses from that day, but never before the header's own start.
  const start = ctx.start
    ? maxDay(ctx.start, model.config.start ?? ctx.start)
    : await modelStart(exec, model, ctx.sql, ctx.end);
  if (start === undefined) {
    await ensureTable(ctx, ['1970-01-01', '1970-01-01']);
    return { rowsAffected: 0, intervals: [], message: 'no rows in the sources yet' };
  }
  const done = ctx.start ? new Set<string>() : await processedDays(exec, model.id);
  const ranges = plannedRanges(start, ctx.end, done, ctx.start ? 0 : model.config.lookback, model.config.batchDays);
  let rows = 0;
  for (const range of ranges) {
    const now = sqlTimestamp(clock.now());
    const window = `${timeColumn} >= DATE '${range[0]}' AND ${timeColumn} < DATE '${addDays(range[1], 1)}'`;
    const select = substituteMacros(ctx.sql, { start_date: range[0], end_date: range[1] });
    await exec.transaction(async () => {
      await ensureTable(ctx, range);
      await exec.run(`DELETE FROM ${rel} WHERE ${window}`);
      rows += await exec.run(`INSERT INTO ${rel} BY NAME SELECT * FROM (${select}\n) AS q WHERE ${window}`);
      await markProcessed(exec, model.id, range, runId, now);
    });
  }
  const auditScope = ranges.length
    ? ranges.map(([s, e]) => `(${timeColumn} >= DATE '${s}' AND ${timeColumn} < DATE '${addDays(e, 1)}')`).join(' OR ')
    : 'false';
  const days = ranges.reduce((n, [s, e]) => n + daysBetween(s, e).length, 0);
  return {
    rowsAffected: rows,
    intervals: ranges,
    auditScope,
    startDate: model.config.start ?? start,
    message: days === 0 ? 'up to date' : `${days} day(s)`,
  };
};

/** Header `start:`, else the start remembered from the first build, else the earliest day the query returns. */
export async function modelStart(exec: Executor, model: Model, sql: string, end: string): Promise<string | undefined> {
  if (model.config.start) return model.config.start;
  const remembered = (await readModelStates(exec)).get(model.id)?.start_date;
  if (remembered) return remembered;
  const select = substituteMacros(sql, { start_date: '1900-01-01', end_date: end });
  const column = ident(model.config.timeColumn as string);
  try {
    const first = await exec.scalar<string | null>(
      `SELECT strftime(min(${column}), '%Y-%m-%d') FROM (${select}\n) AS q`,
    );
    return first ?? undefined;
  } catch (error) {
    throw new VwhError(
      'MODEL_ERROR',
      `could not find the first day of ${model.id} (min of ${model.config.timeColumn}); set start: in its header. ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** Creates the (empty) table from the query's columns the first time. */
async function ensureTable(ctx: MaterializeContext, range: DayRange): Promise<void> {
  const { model, exec } = ctx;
  if (await relationKind(exec, model.schema, model.name)) {
    if ((await relationKind(exec, model.schema, model.name)) === 'view')
      await dropRelation(exec, model.schema, model.name);
    else return;
  }
  const select = substituteMacros(ctx.sql, { start_date: range[0], end_date: range[1] });
  await exec.run(`CREATE TABLE ${qualified(model.schema, model.name)} AS SELECT * FROM (${select}\n) AS q LIMIT 0`);
}
