/**
 * (b) Landing throughput: the loader (appender data chunks straight into the target table, in one transaction with the
 * partition's delete) against row-by-row prepared INSERTs of the same rows into the same table, in the same run.
 */
import { cpus } from 'node:os';
import { Warehouse } from '../src/warehouse/warehouse.js';
import { type BenchResult, timed, writeResult } from './lib.js';

const ROWS = Number(process.env.VWH_BENCH_LOADER_ROWS ?? 20_000);

function chatRows(n: number, promptId: string): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => {
    const day = `2026-01-${String(1 + (i % 28)).padStart(2, '0')}`;
    return {
      project_id: 'p-bench',
      prompt_id: promptId,
      id: `chat-${promptId}-${i}`,
      date: `${day}T0${i % 10}:15:00Z`,
      chat_date: day,
      mentioned: i % 3 === 0,
      position: i % 3 === 0 ? 1 + (i % 5) : null,
      chat_preview: 'Best commuter bikes in 2026 are the ones that fit your ride.',
      platform: ['chatgpt', 'perplexity', 'gemini'][i % 3],
      model: 'model-x',
      full_content: 'Best commuter bikes in 2026 are the ones that fit your ride. '.repeat(8),
      prompt_content: 'best commuter bike',
      sentiment: i % 100,
      brands_mentioned_is_null: false,
      sentiment_by_brands_is_null: i % 7 === 0,
      _extra: i % 50 === 0 ? { new_field: i } : null,
    };
  });
}

export async function main(): Promise<BenchResult> {
  const wh = await Warehouse.open(':memory:');
  const ws = await wh.session();
  const run = { team_id: 'bench', _sync_run_id: 'bench-run', _extracted_at: new Date() };
  const rowsA = chatRows(ROWS, 'loader');
  const partition = {
    equals: { project_id: 'p-bench', prompt_id: 'loader' },
    between: { column: 'chat_date', from: '2026-01-01', to: '2026-01-31' },
  };
  // Warm-up (caches the target's columns).
  await ws.loader.loadUnit([{ table: 'raw.chats', partition, rows: rowsA.slice(0, 100) }], run);
  const loader = await timed(() => ws.loader.loadUnit([{ table: 'raw.chats', partition, rows: rowsA }], run));

  const rowsB = chatRows(ROWS, 'rowwise');
  const columns = Object.keys(rowsB[0] ?? {});
  const all = ['team_id', ...columns, '_sync_run_id', '_extracted_at'];
  const placeholders = all.map((c, i) =>
    c === 'date' || c === '_extracted_at'
      ? `CAST($${i + 1} AS TIMESTAMP)`
      : c === 'chat_date'
        ? `CAST($${i + 1} AS DATE)`
        : `$${i + 1}`,
  );
  const rowwise = await timed(async () => {
    const statement = await ws.session.connection.prepare(
      `INSERT INTO raw.chats (${all.map((c) => `"${c}"`).join(', ')}) VALUES (${placeholders.join(', ')})`,
    );
    await ws.session.connection.run('BEGIN TRANSACTION');
    for (const row of rowsB) {
      const values = all.map((c) => {
        if (c === 'team_id') return run.team_id;
        if (c === '_sync_run_id') return run._sync_run_id;
        if (c === '_extracted_at') return run._extracted_at.toISOString();
        const v = row[c];
        return v !== null && typeof v === 'object' ? JSON.stringify(v) : (v as string | number | boolean | null);
      });
      statement.bind(values);
      await statement.run();
    }
    await ws.session.connection.run('COMMIT');
  });
  const [check] = await ws.session.all<{ a: number; b: number }>(
    "SELECT count(*) FILTER (WHERE prompt_id = 'loader') AS a, count(*) FILTER (WHERE prompt_id = 'rowwise') AS b FROM raw.chats",
  );
  ws.close();
  wh.close();
  if (check?.a !== ROWS || check?.b !== ROWS) throw new Error(`row counts differ: ${JSON.stringify(check)}`);

  const ratio = rowwise.ms / loader.ms;
  const result: BenchResult = {
    name: 'loader',
    description:
      `Landing ${ROWS} raw.chats rows: Loader.loadUnit (the partition's delete, then appender data chunks straight ` +
      'into the table, in one transaction) vs row-by-row prepared INSERTs in one transaction, ' +
      `same table, same process; ${cpus().length} cores, ${cpus()[0]?.model ?? 'unknown CPU'}.`,
    ratios: { loader_vs_rowwise_speedup: Math.round(ratio * 10) / 10 },
    figures: {
      rows: ROWS,
      loader_ms: Math.round(loader.ms),
      rowwise_ms: Math.round(rowwise.ms),
      loader_rows_per_s: Math.round(ROWS / (loader.ms / 1000)),
      rowwise_rows_per_s: Math.round(ROWS / (rowwise.ms / 1000)),
    },
    targets: { loader_vs_rowwise_speedup: { target: '>= 20x', met: ratio >= 20 } },
  };
  writeResult(result);
  return result;
}
