import type { RunResults } from '../runner.js';

/** dbt's run_results.json shape: one entry per node with status, timing and rows. */
export function runResultsJson(results: RunResults) {
  return {
    metadata: { generated_at: new Date().toISOString(), run_id: results.runId, command: results.command },
    elapsed_time: results.elapsedMs / 1000,
    results: results.results.map((r) => ({
      unique_id: r.id,
      resource_type: r.type,
      kind: r.kind,
      status: r.status,
      timing: { started_at: r.startedAt, duration_ms: Math.round(r.durationMs * 100) / 100 },
      rows_affected: r.rowsAffected,
      intervals: r.intervals ?? null,
      message: r.message ?? null,
      audits: r.audits,
    })),
  };
}
