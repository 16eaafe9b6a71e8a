/**
 * Stage `exports`: the exports of `exports` in vwh.config.json, after the models built. Each export opens the
 * warehouse read-only itself; no stage holds a write connection by then. Without an `exports` section the Parquet
 * lake is written to `lake/` and the HTML report to `reports/report.html` beside the warehouse; `"exports": {}` turns
 * exports off.
 */
import { existsSync } from 'node:fs';
import { exportArrow, exportParquetLake, writeHtmlReport } from '../../export/index.js';
import { TEST_KIND } from '../../models/state.js';
import { withOps } from '../ledger.js';
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
        ...(ctx.lakeCatalog ? { catalog: ctx.lakeCatalog } : {}),
      });
      counts.parquet = {
        path: outDir,
        files: s.files,
        rows: s.rows,
        bytes: s.bytes,
        kept_files: s.unchanged?.files ?? 0,
        kept_rows: s.unchanged?.rows ?? 0,
      };
    }
    if (plan.arrow) {
      const { outDir, tables } = plan.arrow;
      const s = await exportArrow({ db: ctx.dbPath, outDir, tables, inputs, log: ctx.logger });
      counts.arrow = { path: outDir, files: s.files, rows: s.rows, bytes: s.bytes };
    }
    if (plan.html) {
      const { out, projectId } = plan.html;
      const key = await htmlInputsKey(ctx.dbPath, out, projectId);
      if (existsSync(out) && key === (await lastHtmlKey(ctx.dbPath))) {
        // no model changed since the report was written: the same input makes the same page (most of the stage's
        // time: docs/lab/2026-11-code-constants.md#the-exports)
        ctx.logger.info('html report kept: no model changed since it was written', { out });
        counts.html = { path: out, files: 0, kept: true, key };
      } else {
        const s = await writeHtmlReport({ db: ctx.dbPath, out, projectId, inputs, log: ctx.logger });
        counts.html = { path: out, files: s.files, rows: s.rows, bytes: s.bytes, key };
      }
    }
    if (Object.keys(counts).length === 0) return { status: 'skipped', error: 'no exports configured' };
    return { status: 'succeeded', counts };
  },
};

/**
 * What the HTML report is made of: every model's last build (ops.model_state, which a build by hand changes too;
 * ephemeral models are recorded on every build but live only inside the models that paste them, and the singular
 * tests' rows are not models), its path and its project. The same key as the report the last run wrote means the
 * same page.
 */
async function htmlInputsKey(dbPath: string, out: string, projectId: string | undefined): Promise<string> {
  const models = await withOps(dbPath, ({ session }) =>
    session.scalar<string>(
      `select md5(coalesce(string_agg(model || '|' || run_id || '|' || built_at::varchar, ';' order by model), ''))
         from ops.model_state where kind not in ('ephemeral', '${TEST_KIND}')`,
    ),
  );
  return `${models}|${out}|${projectId ?? ''}`;
}

/** The key of the HTML report the last successful exports stage wrote or kept. */
async function lastHtmlKey(dbPath: string): Promise<string | undefined> {
  const counts = await withOps(dbPath, ({ session }) =>
    session.scalar<string | null>(
      `select counts from ops.pipeline_runs where stage = 'exports' and status = 'succeeded'
        order by started_at desc limit 1`,
    ),
  );
  if (!counts) return undefined;
  const key = (JSON.parse(counts) as { html?: { key?: unknown } }).html?.key;
  return typeof key === 'string' ? key : undefined;
}
