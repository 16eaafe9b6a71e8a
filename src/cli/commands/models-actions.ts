/** The bodies of `vwh models build|run|test|plan|ls|docs` (models.ts declares them and loads this when one runs). */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { systemClock } from '../../core/clock.js';
import { ExitCode, VwhError } from '../../core/errors.js';
import { ensureWritableDir } from '../../core/folders.js';
import {
  createLogger,
  jsonDocument,
  jsonLine,
  type LogFormat,
  type Logger,
  logFormat,
  outputLine,
} from '../../core/log.js';
import { buildCatalog } from '../../models/artifacts/catalog.js';
import { docsHtml } from '../../models/artifacts/docs-html.js';
import { dataDictionary } from '../../models/artifacts/docs-markdown.js';
import { buildManifest } from '../../models/artifacts/manifest.js';
import { defaultTargetDir, writeArtifact } from '../../models/artifacts/write.js';
import { runModels } from '../../models/build.js';
import { formatRanges } from '../../models/intervals.js';
import { planProject } from '../../models/plan.js';
import { loadProject, shippedModelsDir } from '../../models/project.js';
import { doneLine, nodeTally, testOutcomes } from '../../models/results.js';
import { exitCodeFor } from '../../models/runner.js';
import { selectModels } from '../../models/selection.js';
import { readModelStates } from '../../models/state.js';
import type { Project } from '../../models/types.js';
import { runUnitTests } from '../../models/unit-tests.js';
import { guardedInputsOf } from '../../ops/paths.js';
import { Database } from '../../warehouse/duckdb.js';
import { DEFAULT_MEMORY_LIMIT, defaultThreads } from '../../warehouse/resources.js';
import { existingWarehouse } from '../validate.js';

export interface CommonOptions {
  db: string;
  modelsDir?: string;
  targetDir?: string;
  select?: string[];
  exclude?: string[];
  json?: boolean;
  logFormat?: LogFormat;
}
export interface RunCliOptions extends CommonOptions {
  start?: string;
  end?: string;
  fullRefresh?: boolean;
  threads?: number;
  memoryLimit?: string;
  storeFailures?: boolean;
  unit?: boolean;
}

function loggerOf(o: CommonOptions): Logger {
  return createLogger(o.logFormat ? { format: o.logFormat } : {});
}

/** Loads the models folder and says which files it ignored (a model in a misspelt folder would never build). */
async function load(o: CommonOptions): Promise<Project> {
  const project = await loadProject(o.modelsDir ?? shippedModelsDir());
  const logger = loggerOf(o);
  for (const warning of project.warnings) logger.warn(warning);
  return project;
}

/**
 * plan, ls and docs only read: the warehouse is opened read-only (so they cannot change it, and run beside other
 * readers), and a warehouse that does not exist yet is an empty one rather than a new file.
 */
async function openForReading(path: string): Promise<Database> {
  if (path.startsWith(':memory:') || !existsSync(path)) return Database.open(':memory:');
  return Database.open(path, { access_mode: 'READ_ONLY' });
}

/** Where the artifacts go, made and proven writable before any model runs (not found unwritable after a build). */
async function targetOf(o: CommonOptions): Promise<string> {
  return ensureWritableDir(o.targetDir ?? defaultTargetDir(o.db), '--target-dir', await guardedInputsOf(o.db));
}

export async function execute(command: 'build' | 'run' | 'test', o: RunCliOptions): Promise<void> {
  const file = existingWarehouse('--db', o.db);
  const resources = { memoryLimit: o.memoryLimit ?? DEFAULT_MEMORY_LIMIT, threads: o.threads ?? defaultThreads() };
  const target = await targetOf(o);
  const results = await runModels({
    dbPath: file,
    modelsDir: o.modelsDir ?? shippedModelsDir(),
    target,
    resources,
    run: {
      command,
      select: o.select,
      exclude: o.exclude,
      start: o.start,
      end: o.end,
      fullRefresh: o.fullRefresh ?? false,
      // Audits of `test` run one at a time (the failures schema is shared); DuckDB still uses every thread.
      threads: command === 'test' ? 1 : resources.threads,
      storeFailures: o.storeFailures ?? false,
      clock: systemClock,
      logger: loggerOf(o),
    },
    logger: loggerOf(o),
  });
  const counts = new Map<string, number>();
  for (const r of results.results) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  const summary = [...counts.entries()].map(([s, n]) => `${n} ${s}`).join(', ') || 'nothing selected';
  const json = loggerOf(o).format === 'json';
  const where = resolve(target, 'run_results.json');
  // `test`: one line per audit and singular test, by name; every command ends with dbt's tally
  const tested = command === 'test' ? testOutcomes(results.results) : undefined;
  const tally = tested?.tally ?? nodeTally(results.results);
  if (json) {
    for (const c of tested?.checks ?? []) {
      const level = c.status === 'PASS' ? 'info' : c.status === 'WARN' || c.status === 'SKIP' ? 'warn' : 'error';
      process.stdout.write(jsonLine(level, `${c.status} ${c.name}`, { ...c }));
    }
    process.stdout.write(jsonLine('info', `models ${command} done`, { ...tally, run_results: where }));
  } else {
    for (const c of tested?.checks ?? []) {
      process.stdout.write(`${c.status.padEnd(5)} ${c.name}${c.detail ? `  ${c.detail}` : ''}\n`);
    }
    process.stdout.write(`${command}: ${summary} (${where})\n${doneLine(tally)}\n`);
  }
  if (exitCodeFor(results) === ExitCode.partial) {
    const bad = results.results.filter((r) => r.status === 'error' || r.status === 'fail');
    const failedModel = bad.some((r) => r.status === 'error');
    throw new VwhError(
      failedModel ? 'MODEL_ERROR' : 'AUDIT_FAILED',
      `${bad.length} node(s) failed: ${bad.map((r) => `${r.id} (${r.status})`).join(', ')}. ` +
        `Their downstream models were skipped; details in ${resolve(target, 'run_results.json')}.`,
      { exitCode: ExitCode.partial, details: { failed: bad.map((r) => r.id) } },
    );
  }
}

export async function unit(o: RunCliOptions): Promise<void> {
  const project = await load(o);
  const selected =
    o.select || o.exclude ? selectModels(project, o.select ?? [], o.exclude ?? [], new Map()) : undefined;
  const results = await runUnitTests(project, selected ? (m) => selected.has(m) : undefined);
  for (const r of results) {
    process.stdout.write(
      outputLine(
        `${r.status.toUpperCase().padEnd(5)} ${r.name} (${r.model})${r.message ? `\n${r.message}` : ''}`,
        { ...r },
        r.status === 'pass' ? 'info' : 'error',
      ),
    );
  }
  const bad = results.filter((r) => r.status !== 'pass');
  process.stdout.write(
    outputLine(`unit tests: ${results.length - bad.length} passed, ${bad.length} failed`, {
      passed: results.length - bad.length,
      failed: bad.length,
    }),
  );
  if (bad.length) {
    throw new VwhError('AUDIT_FAILED', `${bad.length} unit test(s) failed: ${bad.map((r) => r.name).join(', ')}.`, {
      exitCode: ExitCode.partial,
    });
  }
}

export async function plan(o: RunCliOptions): Promise<void> {
  const project = await load(o);
  const db = await openForReading(o.db);
  try {
    const entries = await planProject(db, project, {
      select: o.select,
      exclude: o.exclude,
      start: o.start,
      end: o.end,
      clock: systemClock,
    });
    if (o.json || logFormat() === 'json') {
      // the JSON keeps its [first, last] pairs of days
      const json = entries.map((e) => (e.missing ? { ...e, missing: e.missing.map((r) => [r.from, r.to]) } : e));
      process.stdout.write(jsonDocument(json));
      return;
    }
    for (const e of entries) {
      const missing = e.missing ? `  missing: ${e.missing.length ? formatRanges(e.missing) : 'none'}` : '';
      const upstream = e.upstreamChanged ? `  upstream changed: ${e.upstreamChanged.join(', ')}` : '';
      process.stdout.write(
        `${e.change.padEnd(10)} ${e.id}  [${e.kind}]${missing}${upstream}${e.note ? `  (${e.note})` : ''}\n`,
      );
    }
  } finally {
    db.close();
  }
}

export async function ls(o: RunCliOptions): Promise<void> {
  const project = await load(o);
  const selected = selectModels(project, o.select ?? [], o.exclude ?? [], await statesIfAny(o, project));
  const rows = project.graph.order
    .filter((id) => selected.has(id))
    .map((id) => project.models.get(id))
    .filter((m) => m !== undefined)
    .map((m) => ({
      id: m.id,
      kind: m.config.kind,
      path: m.path,
      parents: m.parents,
      sources: m.sources,
      tags: m.config.tags,
    }));
  if (o.json || logFormat() === 'json') {
    process.stdout.write(jsonDocument(rows));
    return;
  }
  for (const r of rows) {
    const tags = r.tags.length ? `  tags: ${r.tags.join(',')}` : '';
    process.stdout.write(
      `${r.id}  [${r.kind}]  ${r.path}  <- ${[...r.parents, ...r.sources].join(', ') || '-'}${tags}\n`,
    );
  }
}

/** state:modified needs the warehouse; other selectors do not, so ls works without one. */
async function statesIfAny(o: CommonOptions, _project: Project) {
  const wantsState = [...(o.select ?? []), ...(o.exclude ?? [])].some((s) => s.includes('state:'));
  if (!wantsState) return new Map();
  const db = await openForReading(o.db);
  try {
    return await readModelStates(db.session);
  } finally {
    db.close();
  }
}

export async function docs(o: CommonOptions): Promise<void> {
  const target = await targetOf(o);
  const project = await load(o);
  const db = await openForReading(o.db);
  try {
    const manifest = buildManifest(project, new Date());
    const catalog = await buildCatalog(db.session, project);
    const files = [
      writeArtifact(target, 'manifest.json', manifest),
      writeArtifact(target, 'catalog.json', catalog),
      writeArtifact(target, 'data_dictionary.md', dataDictionary(manifest, catalog)),
      writeArtifact(target, 'index.html', docsHtml(manifest, catalog)),
    ];
    process.stdout.write(outputLine(`docs: ${files.join(', ')}`, { files }));
  } finally {
    db.close();
  }
}
