/**
 * The end of `vwh run`: each stage's outcome with what it changed, then where to look (warehouse, published copy,
 * report, queries) — or, after a stop, what was saved and that the next run resumes. With `--log-format json` the
 * same facts are one `run summary` event.
 */
import { relative } from 'node:path';
import { type Paint, paint } from '../core/log.js';
import { DEFAULT_DB_PATH } from '../warehouse/duckdb.js';
import type { PipelineResult } from './pipeline.js';
import { n, whatChanged } from './stage-changes.js';

/** The first queries to try: the brand's visibility trend, share of voice, and the run ledger. */
const QUERIES = [
  "select date, brand_name, visibility_28d_pct, mom_delta_pp, mom_significant from marts.brand_visibility_trend where is_own_brand and provider = 'all' order by date desc limit 10",
  "select project_id, brand_name, sum(brand_responses) as named from marts.share_of_voice_daily where provider = 'all' group by all order by project_id, named desc",
  'select stage, status, duration_ms, counts from ops.pipeline_runs where run_id = (select max(run_id) from ops.pipeline_runs) order by started_at',
];

export interface Places {
  db: string;
  published?: string;
  report?: string;
  lake?: string;
}

export interface SummaryStyle {
  /** ANSI colour (a terminal without NO_COLOR). */
  color?: boolean;
}

const STATUS_COLOUR: Record<string, Paint> = {
  succeeded: 'green',
  partial: 'yellow',
  interrupted: 'yellow',
  skipped: 'dim',
  failed: 'red',
};

export function formatSummary(result: PipelineResult, places: Places, style: SummaryStyle = {}): string {
  const on = Boolean(style.color);
  const status = (s: string) => paint(on, STATUS_COLOUR[s] ?? 'bold', s);
  const lines = [`\nrun ${result.runId}: ${status(result.status)} (exit ${result.exitCode})`];
  for (const s of result.stages) {
    const why = s.outcome.error ? `  ${s.outcome.error.split('\n')[0]}` : '';
    // Audits at warn do not fail the stage (the run exits 0): say so here, or nobody reads the log line.
    const warned = Number(s.outcome.counts?.audits_warned ?? 0);
    const note = warned > 0 ? `  ${warned} audit${warned === 1 ? '' : 's'} warned (vwh status lists them)` : '';
    const [changed, ...more] = whatChanged(s.name, s.outcome.counts ?? {}, s.outcome.status);
    lines.push(
      `  ${s.name.padEnd(8)} ${status(s.outcome.status.padEnd(11))} ${formatMs(s.durationMs).padStart(7)}${changed ? `  ${changed}` : ''}${why}${note}`,
    );
    for (const line of more) lines.push(`${' '.repeat(31)}${line}`);
  }
  if (result.status === 'interrupted') {
    lines.push('', ...afterStop(result), '', `Where to look: the warehouse ${places.db}`);
    return `${lines.join('\n')}\n`;
  }
  if (result.status === 'failed') {
    lines.push('', ...afterFailure(result), '', `Where to look: the warehouse ${places.db}`);
    return `${lines.join('\n')}\n`;
  }
  lines.push('', 'Where to look:', `  warehouse       ${places.db}`);
  if (places.published) lines.push(`  published copy  ${places.published}   (open this one from BI tools)`);
  if (places.report) lines.push(`  HTML report     ${places.report}`);
  if (places.lake) lines.push(`  Parquet lake    ${places.lake}`);
  lines.push('', 'Query it next:');
  for (const sql of QUERIES) lines.push(`  ${queryCommand(places.db)} "${sql}"`);
  lines.push('  docs/analytics.md explains every mart; docs/operations.md runs this every night.');
  return `${lines.join('\n')}\n`;
}

/**
 * After a failed run: the stage that failed and what to do, never the queries of a good night (the marts they read
 * may not exist). The stage's error says what was wrong; the stages it skipped kept the last finished run's files.
 */
export function afterFailure(result: PipelineResult): string[] {
  const failed = result.stages.find((s) => s.outcome.status === 'failed');
  if (!failed) return [];
  const skipped = result.stages.filter((s) => s.outcome.status === 'skipped').map((s) => s.name);
  return [
    `The ${failed.name} stage failed: ${(failed.outcome.error ?? 'see the log above').split('\n')[0]}`,
    ...(skipped.length
      ? [`Not run: ${skipped.join(', ')} (the published copy and the reports stay those of the last finished run).`]
      : []),
    `Fix what the error names (docs/errors.md lists each code and its fix), then run \`${cliCommand()} run\` again; \`${cliCommand()} doctor\` checks the config, the keys and the warehouse.`,
  ];
}

/** After Ctrl-C (or SIGTERM): what was saved, what did not run, and that the next run resumes. */
function afterStop(result: PipelineResult): string[] {
  const sync = result.stages.find((s) => s.name === 'sync')?.outcome;
  const units = sync?.counts?.units;
  const planned = sync?.counts?.units_planned;
  const lines = ['Stopped at a safe point (SIGINT/SIGTERM): nothing already landed is lost.'];
  if (units !== undefined) {
    lines.push(
      `Saved: ${n(units)}${planned === undefined ? '' : ` of ${n(planned)}`} sync units, each committed with its rows and state.`,
    );
  }
  const notRun = result.stages
    .filter((s) => s.outcome.status === 'interrupted' && s.name !== 'sync')
    .map((s) => s.name);
  if (notRun.length) {
    lines.push(
      `Not run: ${notRun.join(', ')}; the published copy and the reports are still those of the last finished run.`,
    );
  }
  lines.push(`The next \`${cliCommand()} run\` resumes where this one stopped: it fetches only what is left.`);
  return lines;
}

/** The summary as the fields of one JSON event (`run summary`): the same facts, for a log reader. */
export function summaryFields(result: PipelineResult, places: Places): Record<string, unknown> {
  return {
    run_id: result.runId,
    status: result.status,
    exit_code: result.exitCode,
    stages: result.stages.map((s) => ({
      stage: s.name,
      status: s.outcome.status,
      ms: s.durationMs,
      ...(s.outcome.error ? { error: s.outcome.error } : {}),
      ...(s.outcome.counts ? { counts: s.outcome.counts } : {}),
    })),
    places,
    ...(result.status === 'interrupted' ? { next: afterStop(result).join(' ') } : {}),
    ...(result.status === 'failed' ? { next: afterFailure(result).join(' ') } : {}),
  };
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** How this CLI was started, so printed commands can be pasted: `node dist/src/cli/bin.js` from a checkout, else `vwh`. */
export function cliCommand(): string {
  const script = process.argv[1];
  if (script && /bin\.js$/.test(script)) return `node ${relative(process.cwd(), script) || script}`;
  return 'vwh';
}

/** `vwh query` on this warehouse (`--db` only when it is not the default). */
export function queryCommand(path: string): string {
  return `${cliCommand()} query${path === DEFAULT_DB_PATH ? '' : ` --db ${path}`}`;
}
