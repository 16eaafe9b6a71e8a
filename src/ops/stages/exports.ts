/**
 * Stage `exports`: the exports of `exports` in vwh.config.json, after the models built. Each export opens the
 * warehouse read-only itself; no stage holds a write connection by then. Without an `exports` section the Parquet
 * lake is written to `lake/` beside the warehouse; `"exports": {}` turns exports off.
 */
import { dirname, join } from 'node:path';
import { exportParquetLake } from '../../export/index.js';
import type { ExportsSection } from '../config.js';
import type { RunContext, Stage, StageOutcome } from '../stage.js';

export function exportsOf(ctx: Pick<RunContext, 'config' | 'dbPath'>): ExportsSection {
  return ctx.config.exports ?? { parquet: { outDir: join(dirname(ctx.dbPath), 'lake') } };
}

export const exportsStage: Stage = {
  name: 'exports',
  needs: ['models'],
  async run(ctx): Promise<StageOutcome> {
    const plan = exportsOf(ctx);
    const counts: Record<string, unknown> = {};
    if (plan.parquet) {
      const { outDir, raw, staging, tables } = plan.parquet;
      const s = await exportParquetLake({
        db: ctx.dbPath,
        outDir,
        ...(raw !== undefined ? { raw } : {}),
        ...(staging !== undefined ? { staging } : {}),
        ...(tables ? { tables } : {}),
        log: ctx.logger,
      });
      counts.parquet = { path: outDir, files: s.files, rows: s.rows, bytes: s.bytes };
    }
    if (Object.keys(counts).length === 0) return { status: 'skipped', error: 'no exports configured' };
    return { status: 'succeeded', counts };
  },
};
