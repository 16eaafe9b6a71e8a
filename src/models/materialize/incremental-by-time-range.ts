import { addDays, type DayRange, dayDiff, maxDay, minDay } from '../../core/days.js';
import { quoteIdent, quoteLiteral } from '../../core/sql.js';
import type { Session } from '../../warehouse/session.js';
import { AuditBlocked, isBlocking } from '../audits/blocked.js';
import { type AuditOutcome, NOTHING } from '../audits/run.js';
import { daysPerBatch, plannedRanges, staleAfterEnd, toRanges } from '../intervals.js';
import type { Relations } from '../relations.js';
import { qualified, substituteMacros } from '../sql-text.js';
import { clearIntervals, clearRestated, markProcessed, processedDays, restate, restatedDays } from '../state.js';
import { dropRelation, tempName } from '../swap.js';
import type { Model } from '../types.js';
import { addedNote, addNewColumns, describeColumns } from './columns.js';
import type { MaterializeContext, MaterializeResult, Materializer, TimeRangeRelation } from './types.js';

/**
 * `incremental_by_time_range`: daily intervals kept in ops.model_intervals. Only days not yet processed run (plus
 * `lookback` days before each missing stretch); `--start/--end` reprocesses a range. Each batch deletes its days and
 * inserts the query's rows for them, and records them, in one transaction: a failed batch leaves no trace. Days a
 * time-range model upstream rewrote (its lookback, a backfill, a full rebuild) are re-processed here too, in the
 * same run or a later one: the batch that rewrites days records them in ops.model_restated for every time-range
 * model below it, and the batch that re-processes them clears them.
 * `--full-refresh` builds every day under a temporary name and swaps it in with its bookkeeping, so a failure
 * keeps the previous table.
 */
export const materializeIncrementalByTimeRange: Materializer = async (ctx) => {
  const { model, exec, relations, runId, clock } = ctx;
  const rel = qualified(model.schema, model.name);
  if (ctx.fullRefresh) return rebuildAll(ctx);

  // Days recorded for a table that is gone (dropped by hand, or a view of that name) are not there any more.
  if (relations.kind(model.schema, model.name) !== 'table') await clearIntervals(exec, model.id);
  const { note: forgotten, processed } = await forgetPastHorizon(ctx);
  const start = await firstDay(ctx);
  if (start === undefined) {
    await exec.transaction(() => ensureTable(ctx, { from: '1970-01-01', to: '1970-01-01' }));
    relations.set(model.schema, model.name, 'table');
    return { rowsAffected: 0, intervals: [], message: 'no rows in the sources yet' };
  }
  const done = ctx.start ? new Set<string>() : (processed ?? (await processedDays(exec, model.id, relations)));
  const more = await reprocessedDays(exec, model, relations, ctx.upstreamDays ?? [], done);
  const ranges = await batched(ctx, (batchDays) =>
    plannedRanges(start, ctx.end, done, ctx.start ? 0 : model.config.lookback, batchDays, more),
  );
  // Days after `end` (a run stopped early with --end) that read a day written now: processed again next time.
  const stale = model.config.readsBack
    ? staleAfterEnd(
        ranges,
        ctx.end,
        model.config.readsBack,
        ctx.start ? (processed ?? (await processedDays(exec, model.id, relations))) : done,
      )
    : [];
  if (ranges.length === 0) {
    await exec.transaction(() => ensureTable(ctx, { from: start, to: start }));
    relations.set(model.schema, model.name, 'table');
  }
  let added: string[] = [];
  let rows = 0;
  const startDate = model.config.start ?? start;
  for (const [i, range] of ranges.entries()) {
    const now = new Date(clock.now());
    await exec.transaction(async () => {
      if (i === 0) {
        await ensureTable(ctx, range);
        const columns = await describeColumns(exec, select(ctx, range));
        added = await addNewColumns(exec, model.schema, model.name, columns);
        // The batches below move the model's newest _extracted_at past the rows landed on these days: until a batch
        // re-processes a day (it clears it below), the day stays restated, so a later batch that fails, or a day
        // after `end`, is not lost.
        for (const days of toRanges(more.landed)) await restate(exec, [model.id], days, model.id, runId);
      }
      await exec.run(`DELETE FROM ${rel} WHERE ${window(model, range)}`);
      rows += await exec.run(`INSERT INTO ${rel} BY NAME ${batchRows(ctx, range)}`);
      await markProcessed(exec, model.id, range, runId, now);
      await clearRestated(exec, model.id, range);
      await restate(exec, ctx.restates ?? [], range, model.id, runId);
      if (i === ranges.length - 1) {
        for (const days of stale) await restate(exec, [model.id], days, model.id, runId);
        await ctx.recordState?.(startDate);
      }
    });
    if (i === 0) relations.set(model.schema, model.name, 'table');
  }
  const days = ranges.reduce((n, r) => n + dayDiff(r.from, r.to) + 1, 0);
  return {
    rowsAffected: rows,
    intervals: ranges,
    auditScope: ranges.length ? ranges.map((r) => `(${window(model, r)})`).join(' OR ') : NOTHING,
    startDate,
    message: `${days === 0 ? 'up to date' : `${days} day(s)`}${addedNote(added)}${forgotten}`,
  };
};

/**
 * A day after the warehouse's horizon (the API's last complete day) cannot have been complete when it was built: a
 * build of an older version, whose horizon was the machine's yesterday, marked such days built while they were
 * still empty. Their rows are deleted and the days forgotten, in one transaction, so that they are built once the
 * API has completed them, and nothing downstream reads them (a trend day with no answers) meanwhile.
 */
async function forgetPastHorizon(ctx: MaterializeContext): Promise<{ note: string; processed?: Set<string> }> {
  const { model, exec, relations, horizon } = ctx;
  if (horizon?.source !== 'sync' || relations.kind(model.schema, model.name) !== 'table') return { note: '' };
  // The days read here are the build's processed days too (one read of ops.model_intervals, not two).
  const processed = await processedDays(exec, model.id, relations);
  const after = [...processed].filter((d) => d > horizon.day);
  if (after.length === 0) return { note: '', processed };
  const column = quoteIdent(model.config.timeColumn as string);
  await exec.transaction(async () => {
    await exec.run(
      `DELETE FROM ${qualified(model.schema, model.name)} WHERE ${column} >= DATE '${addDays(horizon.day, 1)}'`,
    );
    await clearIntervals(exec, model.id, horizon.day);
  });
  for (const day of after) processed.delete(day);
  return {
    note: `; ${after.length} day(s) after the horizon ${horizon.day} forgotten (built before the API completed them)`,
    processed,
  };
}

/**
 * What a build re-processes besides its missing days (the `more` of `plannedRanges`), for the build and for `plan`
 * alike: a day an upstream time-range model rewrote, done or not (`upstream`: in this run; `ops.model_restated`:
 * recorded by a run that did not build this model, after a --select or a failure above it); the days of rows
 * landed since the model's newest (`restate_landed`; none before its first day is done); and the days its own
 * earlier run left stale (`own`): past that run's `--end` with `reads_back`, or done days with landed rows that
 * the run did not re-process. `landed` lists the done days with landed rows, whatever `end`: the build records
 * them as its own restated days before its newest `_extracted_at` moves past them.
 */
export async function reprocessedDays(
  exec: Session,
  model: Model,
  relations: Relations,
  upstream: Iterable<string>,
  done: ReadonlySet<string>,
): Promise<{ restated: Set<string>; readsBack: number; stale: Iterable<string>; landed: string[] }> {
  const recorded = await restatedDays(exec, model.id, relations);
  const restated = new Set([...upstream, ...recorded.upstream]);
  const landed: string[] = [];
  if (done.size > 0) {
    for (const day of await landedDays(exec, model, qualified(model.schema, model.name))) {
      restated.add(day);
      if (done.has(day)) landed.push(day);
    }
  }
  const readsBack = model.config.readsBack;
  return { restated, readsBack, stale: recorded.own, landed };
}

/**
 * `restate_landed`: the days of rows landed in those raw tables after the newest `_extracted_at` the model holds,
 * however old the day (a refresh on the sync's rotation re-fetches up to a month; answers of a day that was built
 * before they arrived). The sync stamps each unit's rows with the time it landed them, and a build reads them after
 * the sync: any row newer than the model's newest was not processed yet; a model that holds no row yet has read
 * none of them. Rows deleted without a replacement leave no stamp: the model's `lookback` still covers those.
 */
async function landedDays(exec: Session, model: Model, rel: string): Promise<string[]> {
  if (model.config.restateLanded.length === 0) return [];
  const time = quoteIdent(model.config.timeColumn as string);
  const union = model.config.restateLanded
    .map(
      (t) =>
        `SELECT DISTINCT CAST(${time} AS DATE) AS day FROM ${t} WHERE _extracted_at > (SELECT coalesce(newest, TIMESTAMP '-infinity') FROM held)`,
    )
    .join(' UNION ');
  try {
    const rows = await exec.all<{ day: string }>(
      `WITH held AS (SELECT max(_extracted_at) AS newest FROM ${rel}) SELECT strftime(day, '%Y-%m-%d') AS day FROM (${union})`,
    );
    return rows.map((r) => r.day);
  } catch (error) {
    throw new Error(
      `restate_landed: ${model.config.restateLanded.join(', ')} and the model must each have ${model.config.timeColumn} and _extracted_at (${(error as Error).message})`,
      { cause: error },
    );
  }
}

/** `--full-refresh`: every day into `<name>__vwh_new`, audited there, then swapped in with its intervals. */
async function rebuildAll(ctx: MaterializeContext): Promise<MaterializeResult> {
  const { model, exec, runId, clock } = ctx;
  const temp = tempName(model.name);
  const tempRel = qualified(model.schema, temp);
  // From scratch means from the data's first day again, not the one remembered from the first build.
  const start = await firstDay(ctx, false);
  const ranges = start ? await batched(ctx, (batchDays) => plannedRanges(start, ctx.end, new Set(), 0, batchDays)) : [];
  let rows = 0;
  let audits: AuditOutcome[] | undefined;
  await exec.run(`DROP TABLE IF EXISTS ${tempRel}`);
  try {
    const first = ranges[0] ?? { from: '1970-01-01', to: '1970-01-01' };
    await exec.run(`CREATE TABLE ${tempRel} AS SELECT * FROM (${select(ctx, first)}\n) AS q LIMIT 0`);
    for (const range of ranges) {
      rows += await exec.run(`INSERT INTO ${tempRel} BY NAME ${batchRows(ctx, range)}`);
    }
    if (ctx.auditNew) {
      audits = await ctx.auditNew(tempRel);
      if (isBlocking(audits)) throw new AuditBlocked(audits);
    }
    const now = new Date(clock.now());
    await exec.transaction(async () => {
      await dropRelation(exec, ctx.relations, model.schema, model.name);
      await exec.run(`ALTER TABLE ${tempRel} RENAME TO ${quoteIdent(model.name)}`);
      await clearIntervals(exec, model.id);
      await clearRestated(exec, model.id);
      for (const range of ranges) {
        await markProcessed(exec, model.id, range, runId, now);
        await restate(exec, ctx.restates ?? [], range, model.id, runId);
      }
      await ctx.recordState?.(start ? (model.config.start ?? start) : undefined);
    });
    ctx.relations.set(model.schema, model.name, 'table');
  } catch (error) {
    await exec.run(`DROP TABLE IF EXISTS ${tempRel}`).catch(() => {});
    throw error;
  }
  const days = ranges.reduce((n, r) => n + dayDiff(r.from, r.to) + 1, 0);
  const result: MaterializeResult = {
    rowsAffected: rows,
    intervals: ranges,
    message: start ? `full refresh: ${days} day(s)` : 'full refresh: no rows in the sources yet',
  };
  if (start) result.startDate = model.config.start ?? start;
  if (audits) result.audits = audits;
  return result;
}

/**
 * The batches of days a build writes: `plan`'s ranges cut into `batch_days`, or, with `batch_rows` and more than one
 * batch to write, into as many days as hold that many rows of the model's inputs (`daysPerBatch`).
 */
async function batched(ctx: MaterializeContext, plan: (batchDays: number) => DayRange[]): Promise<DayRange[]> {
  const { batchDays, batchRows } = ctx.model.config;
  const ranges = plan(batchDays);
  const first = ranges[0];
  const last = ranges.at(-1);
  const tables = ctx.inputTables ?? [];
  if (!first || !last || ranges.length === 1 || batchRows <= 0 || tables.length === 0) return ranges;
  const rows = await ctx.exec.scalar<bigint | number | null>(
    `SELECT sum(estimated_size) FROM duckdb_tables() WHERE database_name = current_database() AND lower(schema_name || '.' || table_name) IN (${tables.map(quoteLiteral).join(', ')})`,
  );
  const days = daysPerBatch(batchDays, batchRows, Number(rows ?? 0), dayDiff(first.from, last.to) + 1);
  return days === batchDays ? ranges : plan(days);
}

/** --start reprocesses from that day, but never before the header's own start. */
async function firstDay(ctx: MaterializeContext, remembered = true): Promise<string | undefined> {
  const { model } = ctx;
  if (ctx.start) return maxDay(ctx.start, model.config.start ?? ctx.start);
  return modelStart(ctx.exec, model, ctx.sql, ctx.end, remembered ? ctx.rememberedStart : undefined, {
    relations: ctx.relations,
    ancestors: ctx.timeRangeAncestors ?? [],
  });
}

function select(ctx: MaterializeContext, range: DayRange): string {
  return substituteMacros(ctx.sql, { start_date: range.from, end_date: range.to });
}

/**
 * A batch's rows, in the order of their time column. DuckDB keeps an insert's order in the table (its
 * `preserve_insertion_order`), so a row group holds consecutive days rather than its batch's whole range in the
 * order the query's joins and aggregates happened to give: its date zonemap then bounds a few days. Readers that
 * filter on the day (every downstream batch, a dashboard's quarter) skip the other row groups, and a night that
 * rewrites its last days changes the row groups of those days only, so the lake's export rehashes the months they
 * fall in and not the batch's other month or two (docs/lake.md).
 */
function batchRows(ctx: MaterializeContext, range: DayRange): string {
  const column = quoteIdent(ctx.model.config.timeColumn as string);
  return `SELECT * FROM (${select(ctx, range)}\n) AS q WHERE ${window(ctx.model, range)} ORDER BY ${column}`;
}

/** The rows of a range of days: `[start, end + 1 day)`, right for DATE and TIMESTAMP columns alike. */
function window(model: Model, range: DayRange): string {
  const column = quoteIdent(model.config.timeColumn as string);
  return `${column} >= DATE '${range.from}' AND ${column} < DATE '${addDays(range.to, 1)}'`;
}

/**
 * Header `start:`, else the start remembered from the first build, else the earliest day the query returns.
 *
 * That last one runs the model's query. Over the whole history at once it holds the whole history in memory, which
 * is what `batch_days` keeps out of it: at 10 × an agency, the first builds of four marts ran out of DuckDB's memory
 * here, before their first month. So a batched model with time-range models above it asks its query a batch at a
 * time: first everything before the earliest day those tables hold (inputs filtered to that are empty or nearly so),
 * then a batch from that day on, until one returns a row. Its answer is the same as the one query's for a model
 * whose rows come from inputs of their own days (every time-range model's contract: a batch holds its days' rows).
 */
export async function modelStart(
  exec: Session,
  model: Model,
  sql: string,
  end: string,
  /** The model's ops.model_state.start_date, if it is to be used. */
  remembered: string | null | undefined,
  upstream?: { relations: Relations; ancestors: readonly TimeRangeRelation[] },
): Promise<string | undefined> {
  if (model.config.start) return model.config.start;
  if (remembered) return remembered;
  const column = quoteIdent(model.config.timeColumn as string);
  const firstOf = async (from: string, to: string) => {
    const query = substituteMacros(sql, { start_date: from, end_date: to });
    // A failure here is the model's own SQL failing: DuckDB's message (with its LINE) is the useful one.
    const first = await exec.scalar<string | null>(
      `SELECT strftime(min(${column}), '%Y-%m-%d') FROM (${query}\n) AS q`,
    );
    return first ?? undefined;
  };
  const batch = model.config.batchDays;
  const bound = batch > 0 && upstream ? await earliestDay(exec, upstream.relations, upstream.ancestors) : undefined;
  if (!bound || bound > end) return firstOf('1900-01-01', end);
  const before = await firstOf('1900-01-01', addDays(bound, -1));
  if (before) return before;
  for (let from = bound; from <= end; from = addDays(from, batch)) {
    const first = await firstOf(from, minDay(addDays(from, batch - 1), end));
    if (first) return first;
  }
  return undefined;
}

/** The earliest day the tables hold (those that exist); undefined when none holds a row. */
async function earliestDay(
  exec: Session,
  relations: Relations,
  tables: readonly TimeRangeRelation[],
): Promise<string | undefined> {
  const existing = tables.filter((t) => relations.kind(t.schema, t.name) === 'table');
  if (existing.length === 0) return undefined;
  const mins = existing.map(
    (t) => `SELECT min(CAST(${quoteIdent(t.column)} AS DATE)) AS day FROM ${qualified(t.schema, t.name)}`,
  );
  const day = await exec.scalar<string | null>(
    `SELECT strftime(min(day), '%Y-%m-%d') FROM (${mins.join(' UNION ALL ')})`,
  );
  return day ?? undefined;
}

/**
 * Creates the (empty) table from the query's columns the first time; a view of the same name is replaced. Call it
 * inside the transaction that writes the first interval, so a failing first build leaves nothing behind.
 */
async function ensureTable(ctx: MaterializeContext, range: DayRange): Promise<void> {
  const { model, exec, relations } = ctx;
  const kind = relations.kind(model.schema, model.name);
  if (kind === 'table') return;
  if (kind === 'view') await dropRelation(exec, relations, model.schema, model.name);
  await exec.run(
    `CREATE TABLE ${qualified(model.schema, model.name)} AS SELECT * FROM (${select(ctx, range)}\n) AS q LIMIT 0`,
  );
}
