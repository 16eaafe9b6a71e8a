import type { DayRange } from '../core/days.js';
import { quoteIdent } from '../core/sql.js';
import type { Database } from '../warehouse/duckdb.js';
import { Session } from '../warehouse/session.js';
import { FAILURES_SCHEMA } from './audits/run.js';
import { runSingularTest } from './audits/singular.js';
import { readHorizon } from './horizon.js';
import { DimensionKeys, inputKeys, sourcesOf, sourceVersions, testKey } from './input-keys.js';
import { createMacros } from './macros.js';
import { Relations } from './relations.js';
import { failingAudits, type NodeResult, type RunResults, report, skippedResult } from './results.js';
import { type NodeRun, runNode } from './run-node.js';
import { schedule } from './schedule.js';
import { selectModels, selectTests } from './selection.js';
import { ensureState, type ModelStateRow, readModelStates, recordRuns, TEST_KIND, type TestRun } from './state.js';
import type { Model, Project, RunOptions, SingularTest } from './types.js';

export type { NodeResult, NodeStatus, RunResults } from './results.js';
export { exitCodeFor } from './results.js';
export type { RunOptions } from './types.js';

/** `build` = models then their audits; `run` = models only; `test` = audits and singular tests on what exists. */
export async function runProject(db: Database, project: Project, options: RunOptions): Promise<RunResults> {
  const started = options.clock.now();
  const runId =
    options.runId ??
    `${new Date(started).toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${Math.random().toString(36).slice(2, 8)}`;
  const main = db.session;
  await ensureState(main);
  await createMacros(project.macros, (sql) => main.run(sql));
  const states = await readModelStates(main);
  const relations = await Relations.read(main);
  const selected = selectModels(project, options.select ?? [], options.exclude ?? [], states);
  const order = project.graph.order.filter((id) => selected.has(id));
  const audit = options.command !== 'run';
  const named = selectTests(project, options.select ?? [], options.exclude ?? []);
  // The singular tests of the run: those named, and those reading a selected model (all of them with no selection).
  const tests = audit
    ? project.tests.filter(
        (t) =>
          named.named.has(t.id) ||
          (!named.excluded.has(t.id) &&
            (t.parents.some((p) => selected.has(p)) || selected.size === project.models.size)),
      )
    : [];
  const materialize = options.command !== 'test';
  const horizon = await readHorizon(main, relations, options.clock, options.end);
  if (horizon.note) options.logger.warn(horizon.note, { horizon: horizon.day });
  const { end } = horizon;
  const results = new Map<string, NodeResult>();
  // A full refresh or a backfill rebuilds on purpose, and `test` builds nothing: only other builds reuse.
  const reuse = materialize && !options.fullRefresh && !options.start;
  // The sources of the models in the run, and of the tests, theirs and those of the models above them.
  const read = new Set([
    ...sourcesOf(project, [...order, ...tests.flatMap((t) => t.parents)]),
    ...tests.flatMap((t) => t.sources),
  ]);
  const versions = reuse ? await sourceVersions(main, read) : new Map<string, string>();
  const keys = reuse ? inputKeys(project, versions, end) : new Map<string, string>();
  const dimensions = new DimensionKeys(project, versions);

  // Schemas are created up front: two connections creating the same schema at once conflict.
  for (const schema of new Set(order.map((id) => project.models.get(id)?.schema))) {
    if (schema && materialize) await main.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
  }
  const storing =
    options.storeFailures || order.some((id) => project.models.get(id)?.config.audits.some((a) => a.storeFailures));
  if (audit && storing) await main.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(FAILURES_SCHEMA)}`);
  const threads = Math.max(1, options.threads ?? 1);
  const executors = [main];
  for (let i = 1; i < threads; i++) executors.push(Session.of(await db.connect()));

  // Days each time-range model wrote in this run: a time-range model downstream re-processes them too.
  const written = new Map<string, DayRange[]>();
  const run: NodeRun = {
    db,
    project,
    options,
    runId,
    end,
    horizon,
    materialize,
    audit,
    reuse,
    states,
    relations,
    keys,
    inputKeys: new Map(),
    dimensions,
    written,
  };
  const inRun = new Set(order);
  const runNodeOf = async (model: Model, exec: Session): Promise<NodeResult> => {
    // A parent left out of the selection that the warehouse does not have (a model a newer version added, say)
    // would fail in DuckDB as "Table … does not exist": say which, and how to build it.
    const missing = materialize ? unbuiltParent(relations, project, model.parents, inRun) : null;
    if (missing) {
      return skippedResult(
        model,
        `${missing} is not in the warehouse yet and not selected: build it with this model (vwh models build --select +${model.id}) or build every model (vwh models build)`,
        'error',
      );
    }
    return runNode(run, model, exec);
  };

  await schedule(order, project, executors, results, runNodeOf, options.logger);

  const testRuns: TestRun[] = [];
  // The models' last builds as this run left them: what the tests' keys are made of.
  const built = tests.length > 0 && reuse ? await readModelStates(main) : new Map<string, ModelStateRow>();
  for (const test of tests) {
    // a test selected through one parent must not fail because another was never built
    const missing = unbuiltParent(relations, project, test.parents, new Set());
    const key = reuse ? testKey(project, test, versions, built, end) : null;
    const last = states.get(test.id);
    let result: NodeResult;
    if (missing) {
      result = skippedTest(
        test,
        `skipped: ${missing} is not in the warehouse yet (vwh models build --select ${missing})`,
      );
    } else if (key && !named.named.has(test.id) && last?.kind === TEST_KIND && last.input_key === key) {
      result = reusedTest(test, last);
    } else {
      const ranAt = new Date(options.clock.now());
      result = await runSingularTest(main, project, test, results, options.storeFailures ?? false, end);
      // Passed: remembered with its key, for a later build to reuse. Failed, warned or errored: forgotten, so it
      // runs again. Passed where the key is unknown (`test`, `--full-refresh`): its inputs were not all hashed.
      if (result.status !== 'success' && result.status !== 'skipped') {
        testRuns.push({ test: test.id, fingerprint: test.fingerprint, key: null, ranAt });
      } else if (result.status === 'success' && key) {
        testRuns.push({ test: test.id, fingerprint: test.fingerprint, key, ranAt });
      }
    }
    results.set(test.id, result);
    report(options.logger, result);
  }
  await recordRuns(
    main,
    [...results.values()].map((result) => {
      const audits = failingAudits(result);
      return {
        run_id: runId,
        node: result.id,
        node_type: result.type,
        status: result.status,
        started_at: new Date(result.startedAt),
        finished_at: new Date(Date.parse(result.startedAt) + result.durationMs),
        duration_ms: result.durationMs,
        rows_affected: result.rowsAffected,
        intervals: result.intervals ?? null,
        // A node that warned or failed on its audits says which (vwh status shows it), when it has no message.
        message: result.message ?? (audits ? `audits: ${audits}` : null),
      };
    }),
    run.inputKeys,
    testRuns,
    runId,
  );
  for (const exec of executors.slice(1)) exec.connection.closeSync();
  return {
    runId,
    command: options.command,
    startedAt: new Date(started).toISOString(),
    elapsedMs: options.clock.now() - started,
    horizon,
    results: [...results.values()],
  };
}

/**
 * The first parent (looking through ephemeral ones, which are pasted in) that is neither built in this run nor in
 * the warehouse.
 */
function unbuiltParent(
  relations: Relations,
  project: Project,
  parents: readonly string[],
  inRun: ReadonlySet<string>,
  seen = new Set<string>(),
): string | null {
  for (const id of parents) {
    const model = project.models.get(id);
    if (!model || seen.has(id)) continue;
    seen.add(id);
    if (model.config.kind === 'ephemeral') {
      const missing = unbuiltParent(relations, project, model.parents, inRun, seen);
      if (missing) return missing;
    } else if (!inRun.has(id) && !relations.kind(model.schema, model.name)) return id;
  }
  return null;
}

/** A test whose inputs are those it last passed on: its result kept, its query not run. */
function reusedTest(test: SingularTest, last: ModelStateRow): NodeResult {
  const when = (last.built_at ?? '').replace(/\.\d{3}Z$/, 'Z');
  return {
    ...skippedTest(test, `up to date: no input changed since it last passed, at ${when} (run ${last.run_id ?? '?'})`),
    status: 'success',
    reused: true,
  };
}

function skippedTest(test: SingularTest, message: string): NodeResult {
  return {
    id: test.id,
    type: 'test',
    path: test.path,
    rowsAffected: null,
    audits: [],
    status: 'skipped',
    startedAt: new Date().toISOString(),
    durationMs: 0,
    message,
  };
}
