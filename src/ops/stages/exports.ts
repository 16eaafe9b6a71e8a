/**
 * Stage `exports`: the exports of `exports` in vwh.config.json, after the models built. Each export opens the
 * warehouse read-only itself; no stage holds a write connection by then. Without an `exports` section the Parquet
 * lake is written to `lake/` and the HTML report to `reports/report.html` beside the warehouse; `"exports": {}` turns
 * exports off.
 */
import { exportArrow, exportParquetLake, writeHtmlReport } from '../../export/index.js';
import { exportsOf, guardedInputs } from '../paths.js';
import type { Stage, StageOutcome } from '../stage.js';

export const exportsStage: Stage = {
  name: 'exports',
  needs: ['models'],
  async run(ctx): Promise<StageOutcome> {
    const plan = exportsOf(ctx.dbPath, ctx.config);
    const counts: Record<string, unknown> = {};
    const inputs = guardedInputs(ctx.dbPath, ctx.config);
    if (plan.parquet) {
      const { outDir, raw, staging, tables } = plan.parquet;
      const s = await exportParquetLake({
        db: ctx.dbPath,
        outDir,
        raw,
        staging,
        tables,
        inputs,
        log: ctx.logger,
      });
      counts.parquet = { path: outDir, files: s.files, rows: s.rows, bytes: s.bytes };
    }
    if (plan.arrow) {
      const { outDir, tables } = plan.arrow;
      const s = await exportArrow({ db: ctx.dbPath, outDir, tables, inputs, log: ctx.logger });
      counts.arrow = { path: outDir, files: s.files, rows: s.rows, bytes: s.bytes };
    }
    if (plan.html) {
      const { out, projectId } = plan.html;
      const s = await writeHtmlReport({ db: ctx.dbPath, out, projectId, inputs, log: ctx.logger });
      counts.html = { path: out, files: s.files, rows: s.rows, bytes: s.bytes };
    }
    if (Object.keys(counts).length === 0) return { status: 'skipped', error: 'no exports configured' };
    return { status: 'succeeded', counts };
  },
};
