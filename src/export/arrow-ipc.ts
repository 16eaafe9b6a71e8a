/**
 * `vwh export arrow`: each mart as an Arrow IPC file (Feather v2), `DIR/<schema>.<table>.arrow`. Rows are streamed
 * from DuckDB chunk by chunk into record batches of at most BATCH_ROWS rows, and each batch's bytes go to the file
 * as the writer produces them (FileSink), so memory stays bounded whatever the table's size.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { AsyncByteQueue, Field, makeData, RecordBatch, RecordBatchFileWriter, Schema, Struct } from 'apache-arrow';
import { ensureWritableDir, type GuardedInput } from '../core/folders.js';
import type { Logger } from '../core/log.js';
import { silentLogger } from '../core/log.js';
import type { Database } from '../warehouse/duckdb.js';
import { JSDuckDBValueConverter } from '../warehouse/duckdb-api.js';
import { type ArrowColumn, arrowColumn } from './arrow-columns.js';
import { withHeartbeat } from './heartbeat.js';
import { inside, tempBeside } from './paths.js';
import { portableColumns } from './portable-types.js';
import { withWarehouse } from './source.js';
import type { ExportSummary } from './summary.js';
import { type ExportTable, qualified, selectTables } from './tables.js';

export interface ArrowExportOptions {
  db: string;
  outDir: string;
  tables?: string[];
  /** Rows per record batch (default BATCH_ROWS). */
  batchRows?: number;
  log?: Logger;
  /** What the output may not replace or write into (the warehouse, its WAL, the published copy, the lake, the journal). */
  inputs?: readonly GuardedInput[];
}

/**
 * Rows per record batch (four DuckDB chunks): a batch's JS values die young, so V8 collects them cheaply instead of
 * piling garbage up in its old space: a larger batch let the peak RSS grow with the table
 * (docs/lab/2026-11-code-constants.md#the-exports).
 */
export const BATCH_ROWS = 8_192;

export async function exportArrow(options: ArrowExportOptions): Promise<ExportSummary> {
  const started = Date.now();
  const log = options.log ?? silentLogger;
  const root = ensureWritableDir(options.outDir, '--out', options.inputs);
  return withWarehouse(options.db, async (db) => {
    const tables = await selectTables(db, options.tables ? { tables: options.tables } : {});
    const outputs: string[] = [];
    let rows = 0;
    let bytes = 0;
    for (const table of tables) {
      const file = inside(root, `${table.schema}.${table.name}.arrow`);
      const written = await withHeartbeat(log, 'export progress', { table: `${table.schema}.${table.name}` }, () =>
        writeTable(db, table, file, options.batchRows ?? BATCH_ROWS),
      );
      rows += written;
      const size = statSync(file).size;
      bytes += size;
      outputs.push(file);
      log.info('arrow file written', { table: `${table.schema}.${table.name}`, rows: written, bytes: size, file });
    }
    const summary: ExportSummary = {
      kind: 'arrow',
      files: outputs.length,
      rows,
      bytes,
      ms: Date.now() - started,
      outputs,
    };
    log.info('arrow export done', { out: root, files: summary.files, rows, bytes, ms: summary.ms });
    return summary;
  });
}

/**
 * The IPC writer's sink, writing each chunk to the file at once. The writer's own sink is a queue that a piped
 * Node stream drains asynchronously: nothing slows the writer down, so a fast reader piles the whole file up in it
 * (peak RSS grew with the table: docs/lab/2026-11-code-constants.md#the-exports).
 */
class FileSink extends AsyncByteQueue {
  constructor(private readonly fd: number) {
    super();
  }
  override write(chunk: Uint8Array): void {
    let offset = 0;
    while (offset < chunk.byteLength) offset += writeSync(this.fd, chunk, offset);
  }
}

async function writeTable(db: Database, table: ExportTable, file: string, batchRows: number): Promise<number> {
  const columns = portableColumns(table.columns).map(arrowColumn);
  const schema = new Schema(columns.map((c) => new Field(c.name, c.type, true)));
  const tmp = tempBeside(file);
  const fd = openSync(tmp, 'w');
  const writer = new RecordBatchFileWriter();
  let rows = 0;
  try {
    writer.reset(new FileSink(fd), schema);
    const result = await db.connection.stream(
      `select ${columns.map((c) => c.expr).join(', ')} from ${qualified(table)}`,
    );
    let pending: unknown[][] = columns.map(() => []);
    let pendingRows = 0;
    const flush = (size: number) => {
      writer.write(
        batchOf(
          schema,
          columns,
          pending.map((values) => values.slice(0, size)),
          size,
        ),
      );
      rows += size;
      pending = pending.map((values) => values.slice(size));
      pendingRows -= size;
    };
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      const values = chunk.convertColumns(JSDuckDBValueConverter);
      values.forEach((column, i) => {
        const target = pending[i] as unknown[];
        for (const value of column) target.push(value);
      });
      pendingRows += chunk.rowCount;
      while (pendingRows >= batchRows) flush(batchRows);
    }
    // an empty table still gets its schema (and one empty batch, which every reader accepts)
    if (pendingRows > 0 || rows === 0) flush(pendingRows);
    writer.finish();
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, file);
  } catch (error) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw error;
  }
  return rows;
}

function batchOf(schema: Schema, columns: ArrowColumn[], values: unknown[][], length: number): RecordBatch {
  const children = columns.map((c, i) => c.toVector(values[i] as unknown[]).data[0]);
  const data = makeData({ type: new Struct(schema.fields), length, nullCount: 0, children: children as never });
  return new RecordBatch(schema, data);
}
