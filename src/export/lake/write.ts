/**
 * `vwh export parquet`: the warehouse as a Hive-partitioned, zstd Parquet lake. Changed partitions are written into
 * `_staging/<run_id>/` first, then published under the lake's lock through a journal (lake/journal.ts): renamed
 * into place one file at a time (a partition is one file, or one file per slot of a large table's month: see
 * lake/layout.ts), the files they replace set aside until the commit point, so that a kill -9 at any moment is
 * undone by the next writer (or `vwh export recover`). Unchanged
 * partitions (same content hash as in the manifest) are not rewritten; files of the writer's teams that the new
 * export does not list are removed, so re-exporting the same data yields the same file set. The manifests and
 * `_SUCCESS` are written last.
 */

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, relative, sep } from 'node:path';
import { ensureWritableDir, type GuardedInput } from '../../core/folders.js';
import type { Logger } from '../../core/log.js';
import { silentLogger } from '../../core/log.js';
import { quoteIdent, quoteLiteral } from '../../core/sql.js';
import type { Database } from '../../warehouse/duckdb.js';
import { listValue } from '../../warehouse/duckdb-api.js';
import type { Session } from '../../warehouse/session.js';
import { withHeartbeat } from '../heartbeat.js';
import { checkSegment, inside } from '../paths.js';
import { exportSession, withWarehouse } from '../source.js';
import type { ExportSummary } from '../summary.js';
import { type ExportTable, selectTables } from '../tables.js';
import type { LakeCatalog } from './catalog.js';
import { LakeConflict, publishToCatalog, repairFromCatalog, taggedName } from './catalog-publish.js';
import {
  type Move,
  newJournal,
  publishJournaled,
  recoverLake,
  recoverUnderLock,
  removeIfEmpty,
  STAGING,
  type StepHook,
  Steps,
} from './journal.js';
import { layoutOf, SLOT_KEY, type TableLayout, writeSql } from './layout.js';
import { withLakeLock } from './lock.js';
import {
  LAKE_FORMAT,
  type ManifestTable,
  readScopeManifest,
  readScopeManifests,
  type ScopeManifest,
  type WriterRecord,
} from './manifest.js';
import { type PlannedPartition, type PlannedTable, planTable, SLOT_MIN_MONTH_ROWS, splitsMonths } from './plan.js';
import { type RowGroupPrint, StorageReader } from './storage.js';
import { checkOtherWriters, checkShapes, type TableShapes } from './writers.js';

export interface ParquetLakeOptions {
  db: string;
  outDir: string;
  /** Rows a month of a table must hold on average for its months to be written as slot files (SLOT_MIN_MONTH_ROWS). */
  slotMinMonthRows?: number;
  raw?: boolean;
  staging?: boolean;
  tables?: string[];
  log?: Logger;
  /** Called before each change the publish makes to the lake (see lake/journal.ts). */
  onStep?: StepHook;
  /** What the output may not replace or write into (the warehouse, its WAL, the published copy, the lake, the journal). */
  inputs?: readonly GuardedInput[];
  /**
   * Where the lake's manifest is kept instead of `_manifests/` and `_manifest.lock` (the cluster's PostgreSQL):
   * a publish is one transaction of the catalog (lake/catalog-publish.ts).
   */
  catalog?: LakeCatalog;
}

/** Plans made again when a catalog's scope changed under the export (lake/catalog-publish.ts, LakeConflict). */
const CONFLICT_ATTEMPTS = 3;

export async function exportParquetLake(options: ParquetLakeOptions): Promise<ExportSummary> {
  const log = options.log ?? silentLogger;
  for (let attempt = 1; ; attempt++) {
    try {
      return await exportOnce(options, log);
    } catch (error) {
      if (!(error instanceof LakeConflict) || attempt >= CONFLICT_ATTEMPTS) throw error;
      log.warn('lake export planned again: another export published the same scope meanwhile', {
        why: error.message,
        attempt,
      });
    }
  }
}

async function exportOnce(options: ParquetLakeOptions, log: Logger): Promise<ExportSummary> {
  const started = Date.now();
  const { catalog } = options;
  const root = ensureWritableDir(options.outDir, '--out', options.inputs, 'lake');
  const runId = `${new Date().toISOString().replace(/[-:.]/g, '')}-${checkSegment(hostname(), 'Host')}-${process.pid}`;
  const stagingDir = inside(root, STAGING, runId);
  // a writer that died publishing is undone (or completed) before this one reads the manifests it plans from; with
  // a catalog, the files it does not list are removed and `_manifest.json` is rewritten from it
  if (catalog) await repairFromCatalog(root, catalog, log, runId);
  else await recoverLake(root, log);

  return withWarehouse(options.db, async (db) => {
    const tables = await selectTables(db, options);
    const hasProjectTeams = await relationExists(db, 'raw', 'projects');
    const planned: PlannedTable[] = [];
    const outputs: string[] = [];
    let rows = 0;
    let bytes = 0;
    let files = 0;
    let keptRows = 0;
    let keptFiles = 0;
    mkdirSync(stagingDir, { recursive: true });
    const sessions = [db.session];
    // the manifests the plan compares with, and the warehouse's storage that tells which hashes still hold
    const manifests = catalog ? await catalog.read() : readScopeManifests(root);
    // a view has no storage of its own: its rows are hashed every time
    const storage = StorageReader.open(options.db);
    // the base tables and their rows (DuckDB's count, without reading them): a table's size decides its months' files
    const baseTables = new Map(
      (
        await db.session.all<{ t: string; n: number | bigint }>(
          `select schema_name || '.' || table_name as t, estimated_size::BIGINT as n from duckdb_tables()
            where database_name = current_database()`,
        )
      ).map((r) => [r.t, Number(r.n)]),
    );
    let projects: Promise<RowGroupPrint[] | undefined> | undefined;
    try {
      // Tables are written WRITERS at a time, each on a connection of its own: DuckDB's partitioned COPY of a table
      // of small partitions keeps about one core busy whatever its threads, so two tables at once use both cores
      // (docs/lab/2026-11-export-lake.md, "The shipped marts at an agency's scale"). The plan keeps the tables' order.
      for (let i = 1; i < Math.min(WRITERS, tables.length); i++) sessions.push(await exportSession(db));
      const slots: (PlannedTable | undefined)[] = tables.map(() => undefined);
      let next = 0;
      const work = async (session: Session) => {
        for (let index = next++; index < tables.length; index = next++) {
          const table = tables[index] as ExportTable;
          slots[index] = await exportTable(session, table);
        }
      };
      const exportTable = async (session: Session, table: ExportTable): Promise<PlannedTable> => {
        const whole = layoutOf(table, hasProjectTeams);
        const key = `${table.schema}.${table.name}`;
        const planStarted = Date.now();
        const prints = baseTables.has(key)
          ? await storage?.prints(session, table, whole.date ? 'date' : undefined)
          : undefined;
        const split =
          whole.date !== undefined &&
          splitsMonths(key, manifests, prints, baseTables.get(key), options.slotMinMonthRows ?? SLOT_MIN_MONTH_ROWS);
        const layout = split ? layoutOf(table, hasProjectTeams, true) : whole;
        if (layout.readsProjects && storage && baseTables.has('raw.projects')) {
          projects ??= storage.prints(session, { schema: 'raw', name: 'projects' });
        }
        const plan = await planTable(session, root, layout, key, manifests, {
          prints,
          projects: layout.readsProjects ? await projects : undefined,
        });
        const hashMs = Date.now() - planStarted;
        const changed = plan.partitions.filter((p) => p.changed);
        const tableDir = join(stagingDir, table.schema, table.name);
        const writeStarted = Date.now();
        if (changed.length > 0) {
          await withHeartbeat(log, 'export progress', { table: key, step: 'writing parquet' }, () =>
            copyPartitions(session, layout, tableDir, plan.partitions, changed, plan.writeWhere),
          );
        }
        for (const part of changed) {
          // a slot file is staged in a folder of its slot (the partitioned write's key) and published as part-<slot>
          const at = part.slot === undefined ? part.path : join(part.path, `${SLOT_KEY}=${part.slot}`);
          const staged = readdirSync(join(tableDir, at))
            .filter((f) => f.endsWith('.parquet'))
            .sort();
          part.bytes = staged.reduce((sum, f) => sum + statSync(join(tableDir, at, f)).size, 0);
          if (part.slot === undefined) part.files = staged;
          else {
            part.files = staged.map((_, i) => `part-${part.slot}${i === 0 ? '' : `-${i}`}.parquet`);
            part.staged = staged.map((f) => join(at, f).split(sep).join('/'));
          }
        }
        log.info('export table staged', {
          table: key,
          partitions: plan.partitions.length,
          rewritten: changed.length,
          ...(layout.slots ? { slot_files: true } : {}),
          rows: plan.partitions.reduce((s, p) => s + p.rows, 0),
          // where the time goes: the content hashes of the partitions (of the months `hashed` read), then the files
          hashed: plan.read,
          hash_ms: hashMs,
          write_ms: Date.now() - writeStarted,
        });
        return plan;
      };
      // On a failure the other writer takes no new table and is waited for before its connection closes.
      const settled = await Promise.allSettled(
        sessions.map((session) =>
          work(session).catch((error: unknown) => {
            next = tables.length;
            throw error;
          }),
        ),
      );
      for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
      for (const plan of slots as PlannedTable[]) {
        planned.push(plan);
        for (const part of plan.partitions) {
          if (!part.changed) {
            keptRows += part.rows;
            keptFiles += part.files.length;
            continue;
          }
          rows += part.rows;
          bytes += part.bytes;
          files += part.files.length;
        }
      }
      const writers = await writerRecords(db, runId);
      const publishStarted = Date.now();
      if (catalog) {
        const tag = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
        tagChangedFiles(planned, tag);
        await publishToCatalog({
          root,
          stagingDir,
          catalog,
          planned: manifests,
          build: (current) => {
            outputs.length = 0;
            return publishPlan(root, planned, writers, outputs, (scope) => current.get(scope));
          },
          check: (current, own) =>
            checkShapes(
              root,
              shapesOf(planned),
              new Map([...current].filter(([scope]) => !own.has(scope))),
              (scope) => `${scope}'s record in ${catalog.name}`,
            ),
          log,
          onStep: options.onStep,
        });
        outputs.unshift(join(root, '_manifest.json'));
      } else await publish(root, stagingDir, planned, writers, outputs, log, options.onStep);
      log.info('export published', { files, ms: Date.now() - publishStarted });
    } finally {
      storage?.close();
      for (const session of sessions.slice(1)) session.connection.closeSync();
      rmSync(stagingDir, { recursive: true, force: true });
      removeIfEmpty(join(root, STAGING));
    }
    const summary: ExportSummary = {
      kind: 'parquet',
      files,
      rows,
      bytes,
      ms: Date.now() - started,
      outputs,
      unchanged: { files: keptFiles, rows: keptRows },
    };
    log.info('parquet lake exported', { out: root, files, rows, bytes, ms: summary.ms, tables: planned.length });
    return summary;
  });
}

async function relationExists(db: Database, schema: string, name: string): Promise<boolean> {
  const n = await db.session.scalar<number>(
    'select count(*) from duckdb_tables() where schema_name = $1 and table_name = $2 and database_name = current_database()',
    [schema, name],
  );
  return Number(n) > 0;
}

/** Tables written at once, each on its own connection (see exportParquetLake). */
const WRITERS = 2;

/** Partition files DuckDB may hold open at once (file descriptors are the limit; ulimit -n is 1024 or more). */
const MAX_OPEN_FILES = 900;
/** Rows a thread buffers before it writes its partitions out (DuckDB's default is 524,288): fewer, larger row groups. */
const FLUSH_ROWS = 1_048_576;

/**
 * The row group size of a partitioned write: each thread's share of the largest partition, rounded up to a power of
 * two, between 16,384 and DuckDB's default of 122,880. A thread writes the rows of a partition it holds as one row
 * group when they fit, so the files keep as many row groups as with the default (240 for 2,000,000 rows in 120
 * partitions on 2 threads, either way); DuckDB's writer, which sizes its per-row-group state by this setting, writes
 * them faster for files a little larger (docs/lab/2026-11-export-lake.md, "What was cut"). Large partitions keep
 * DuckDB's default.
 */
async function rowGroupRows(session: Session, changed: PlannedPartition[]): Promise<number> {
  const threads = Math.max(1, Number(await session.scalar<string>("select current_setting('threads')")));
  const share = Math.ceil(Math.max(0, ...changed.map((p) => p.rows)) / threads);
  return Math.min(122_880, Math.max(16_384, 2 ** Math.ceil(Math.log2(Math.max(1, share)))));
}

/** Writes the `changed` partitions of the table (`all` of them when every one changed) below `dir`. */
async function copyPartitions(
  session: Session,
  layout: TableLayout,
  dir: string,
  all: PlannedPartition[],
  changed: PlannedPartition[],
  /** A condition that selects the changed partitions' rows and fewer others (their months). */
  where?: string,
): Promise<void> {
  const partitions = changed.length;
  mkdirSync(dir, { recursive: true });
  // the Hive keys and, for a table whose months are slot files, the slot (a staging folder of its own)
  const keys = layout.keyNames.map(quoteIdent);
  const options = ['FORMAT parquet', 'COMPRESSION zstd'];
  if (keys.length === 0) {
    await session.run(`COPY (${layout.sql}) TO ${quoteLiteral(join(dir, 'part-0.parquet'))} (${options.join(', ')})`);
    return;
  }
  options.push(`PARTITION_BY (${keys.join(', ')})`, 'OVERWRITE_OR_IGNORE', `FILENAME_PATTERN 'part-{i}'`);
  // DuckDB keeps 100 partition files open by default and, past that, closes and reopens them: with more
  // partitions than that the write took much longer (docs/lab/2026-11-code-constants.md#the-exports).
  await session.run(
    `SET partitioned_write_max_open_files = ${Math.min(Math.max(100, partitions + 1), MAX_OPEN_FILES)}`,
  );
  await session.run(`SET partitioned_write_flush_threshold = ${FLUSH_ROWS}`);
  options.push(`ROW_GROUP_SIZE ${await rowGroupRows(session, changed)}`);
  const rows = writeSql(
    layout,
    all.map((p) => p.values),
    where,
  );
  if (changed.length === all.length) {
    await session.run(`COPY (${rows}) TO ${quoteLiteral(dir)} (${options.join(', ')})`);
    return;
  }
  const keyExpr = keys.map((k) => `CAST(r.${k} AS VARCHAR)`).join(` || '/' || `);
  await session.run(
    `COPY (select * from (${rows}) r where ${keyExpr} in (select unnest($1::varchar[])))
       TO ${quoteLiteral(dir)} (${options.join(', ')})`,
    [listValue(changed.map((p) => p.values.join('/')))],
  );
}

async function writerRecords(db: Database, runId: string): Promise<Omit<WriterRecord, 'scope'>> {
  const generatedAt = new Date().toISOString();
  const syncRuns = (await relationExists(db, 'ops', 'sync_runs'))
    ? await db.session.all<{ run_id: string; team_id: string; status: string; ended_at: string | null }>(
        `select run_id, team_id, status, strftime(ended_at, '%Y-%m-%dT%H:%M:%SZ') as ended_at
           from ops.sync_runs where ended_at is not null
          qualify row_number() over (partition by team_id order by ended_at desc) = 1 order by team_id`,
      )
    : [];
  const build = (await relationExists(db, 'ops', 'model_runs'))
    ? await db.session.one<{ run_id: string; finished_at: string }>(
        `select run_id, strftime(max(finished_at), '%Y-%m-%dT%H:%M:%SZ') as finished_at
           from ops.model_runs group by run_id order by max(finished_at) desc limit 1`,
      )
    : undefined;
  return { run_id: runId, generated_at: generatedAt, sync_runs: syncRuns, model_build: build ?? null };
}

/**
 * Publishes the staged partitions: the moves (staged files into place, files no longer listed removed) and the
 * manifests, journaled under the lake's lock (lake/journal.ts).
 */
async function publish(
  root: string,
  stagingDir: string,
  planned: PlannedTable[],
  writer: Omit<WriterRecord, 'scope'>,
  outputs: string[],
  log: Logger,
  onStep: StepHook | undefined,
): Promise<void> {
  const { moves, scopes } = publishPlan(root, planned, writer, outputs, (scope) => readScopeManifest(root, scope));
  const journal = newJournal(writer.run_id, writer.generated_at, moves, scopes);
  await withLakeLock(root, (lock) => {
    // a writer of another team may have died publishing since this one started
    recoverUnderLock(root, log, writer.run_id);
    // under the lock: the other writers' manifests cannot change until this publish is done
    checkOtherWriters(root, shapesOf(planned), new Set(scopes.map((s) => s.writer.scope)));
    publishJournaled(root, stagingDir, journal, new Steps(onStep, lock));
  });
  outputs.unshift(join(root, '_manifest.json'));
}

/** Each table's shape as the lake's other writers must have it too (lake/writers.ts). */
function shapesOf(planned: PlannedTable[]): TableShapes {
  const shapes: TableShapes = new Map();
  for (const plan of planned) {
    const columns = plan.layout.columns.map((c) => ({ name: c.name, type: c.type, source_type: c.sourceType }));
    const files = plan.partitions.reduce((n, p) => n + p.files.length, 0);
    shapes.set(plan.key, { partition_by: plan.layout.partitionBy, columns, files });
  }
  return shapes;
}

/**
 * Gives the changed partitions' files the names of this publish (lake/catalog-publish.ts): placed beside the files
 * they replace, which stay until the catalog has committed.
 */
function tagChangedFiles(planned: PlannedTable[], tag: string): void {
  for (const plan of planned) {
    for (const part of plan.partitions.filter((p) => p.changed)) {
      part.staged = part.files.map((file, i) => part.staged?.[i] ?? join(part.path, file).split(sep).join('/'));
      part.files = part.files.map((file) => taggedName(file, tag));
    }
  }
}

/**
 * The moves of a publish (staged files into place, files of its teams no longer listed removed) and the manifests
 * of the scopes it writes, each built on `previous(scope)` (its tables this export does not write stay listed).
 */
function publishPlan(
  root: string,
  planned: PlannedTable[],
  writer: Omit<WriterRecord, 'scope'>,
  outputs: string[],
  previous: (scope: string) => ScopeManifest | undefined,
): { moves: Move[]; scopes: ScopeManifest[] } {
  const scopes = new Map<string, ScopeManifest>();
  const scopeManifest = (scope: string): ScopeManifest => {
    let manifest = scopes.get(scope);
    if (!manifest) {
      manifest = {
        format: LAKE_FORMAT,
        writer: {
          ...writer,
          scope,
          sync_runs: writer.sync_runs.filter((r) => scope === 'unpartitioned' || `team_id=${r.team_id}` === scope),
        },
        tables: { ...previous(scope)?.tables },
      };
      scopes.set(scope, manifest);
    }
    return manifest;
  };
  const teams = [
    ...new Set(planned.flatMap((p) => p.partitions.map((part) => part.team_id)).filter((t): t is string => t !== null)),
  ];
  const moves: Move[] = [];
  for (const plan of planned) {
    const { schema, name } = plan.layout.table;
    const tableRoot = inside(root, schema, name);
    for (const part of plan.partitions.filter((p) => p.changed)) {
      part.files.forEach((file, i) => {
        const rel = [schema, name, ...(part.path ? part.path.split('/') : []), file].join('/');
        const staged = part.staged?.[i];
        moves.push({ target: rel, staged: staged === undefined ? rel : `${schema}/${name}/${staged}` });
        outputs.push(inside(root, rel));
      });
    }
    // What this export owns of the table: every team it saw (in any table), or the single unpartitioned file.
    const owned = plan.layout.partitionBy[0] === 'team_id' ? teams : [null];
    for (const file of unlisted(tableRoot, plan, owned))
      moves.push({ target: `${schema}/${name}/${file}`, staged: null });
    const columns = plan.layout.columns.map((c) => ({ name: c.name, type: c.type, source_type: c.sourceType }));
    for (const team of owned) {
      const scope = team === null ? 'unpartitioned' : `team_id=${team}`;
      const table: ManifestTable = {
        path: `${schema}/${name}`,
        partition_by: plan.layout.partitionBy,
        columns,
        partitions: plan.partitions
          .filter((p) => p.team_id === team)
          .map(({ path, slot, team_id, rows, bytes, hash, files, storage_key, storage_teams }) => ({
            path,
            ...(slot === undefined ? {} : { slot }),
            team_id,
            rows,
            bytes,
            hash,
            files,
            ...(storage_key ? { storage_key, storage_teams } : {}),
          })),
      };
      scopeManifest(scope).tables[plan.key] = table;
    }
  }
  return { moves, scopes: [...scopes.values()] };
}

/** Files of `owned` teams below the table that the plan does not list (paths relative to the table's folder). */
function unlisted(tableRoot: string, plan: PlannedTable, owned: (string | null)[]): string[] {
  if (!existsSync(tableRoot)) return [];
  const keep = new Set<string>();
  for (const part of plan.partitions) for (const f of part.files) keep.add(join(part.path, f));
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!keep.has(relative(tableRoot, path))) out.push(relative(tableRoot, path).split(sep).join('/'));
    }
  };
  for (const team of owned) {
    if (team === null) {
      for (const entry of readdirSync(tableRoot, { withFileTypes: true })) {
        if (entry.isFile() && !keep.has(entry.name)) out.push(entry.name);
      }
    } else if (existsSync(join(tableRoot, `team_id=${team}`))) walk(join(tableRoot, `team_id=${team}`));
  }
  return out.sort();
}
