import { createHash } from 'node:crypto';
import { groupBy } from '../core/group.js';
import { quoteIdent } from '../core/sql.js';
import type { Session } from '../warehouse/session.js';
import type { ColumnsRead } from './columns-read.js';
import { reachable } from './graph.js';
import { qualified } from './sql-text.js';
import type { ModelStateRow } from './state.js';
import type { Model, Project, SingularTest } from './types.js';

/**
 * What a model was built from, as one hash: its fingerprint, the version of every source table it reads, and the
 * same hash of every parent model. When a build finds the hash it recorded after its last successful build, the
 * model's relation already holds what the build would write, so it is left alone (and so are its audits, which
 * passed on the same rows). This is what makes a build with nothing new cost next to nothing.
 *
 * A source table's version is its row count and its newest `_extracted_at` (every raw table has one): the sync
 * only inserts and deletes, and every insert carries the time of its sync run, so any change moves one of the two.
 * A source without `_extracted_at` (a `depends_on` table outside raw.*) is versioned by a hash of all its rows.
 */
export async function sourceVersions(exec: Session, tables: Iterable<string>): Promise<Map<string, string>> {
  const versions = new Map<string, string>();
  const wanted = [...new Set(tables)].map((table) => {
    const [schema = '', name = ''] = table.split('.');
    return { table, schema, name };
  });
  // The columns of every source in one catalogue scan (one scan costs about as much as one table's lookup).
  let columnsOf = new Map<string, string[]>();
  const schemas = [...new Set(wanted.map((w) => w.schema))];
  if (schemas.length > 0) {
    const rows = await exec.all<{ schema_name: string; table_name: string; column_name: string }>(
      `SELECT schema_name, table_name, column_name FROM duckdb_columns() WHERE schema_name IN (${schemas.map((_, i) => `$${i + 1}`).join(', ')})`,
      schemas,
    );
    columnsOf = groupBy(
      rows,
      (r) => `${r.schema_name}.${r.table_name}`,
      (r) => r.column_name,
    );
  }
  for (const { table, schema, name } of wanted) {
    const columns = columnsOf.get(`${schema}.${name}`) ?? [];
    const rel = qualified(schema, name);
    if (columns.length === 0) versions.set(table, 'absent');
    else if (columns.includes('_extracted_at'))
      versions.set(
        table,
        String(await exec.scalar(`SELECT count(*) || '|' || coalesce(max(_extracted_at)::VARCHAR, '') FROM ${rel}`)),
      );
    else
      versions.set(
        table,
        String(await exec.scalar(`SELECT count(*) || '|' || coalesce(sum(hash(t))::VARCHAR, '') FROM ${rel} AS t`)),
      );
  }
  return versions;
}

/**
 * The input hash of every model in `ids` and of their ancestors. `end` (the last day incremental models process)
 * counts for models whose SQL or kind depends on it: a new day is new work for them even with the same inputs.
 */
export function inputKeys(project: Project, versions: ReadonlyMap<string, string>, end: string): Map<string, string> {
  const keys = new Map<string, string>();
  for (const id of project.graph.order) {
    const model = project.models.get(id) as Model;
    const hash = createHash('sha256').update(model.fingerprint);
    if (usesEnd(model)) hash.update(`|end=${end}`);
    for (const source of model.sources) hash.update(`|${source}=${versions.get(source) ?? 'absent'}`);
    for (const parent of model.parents) hash.update(`|${parent}=${keys.get(parent) ?? ''}`);
    keys.set(id, hash.digest('hex').slice(0, 24));
  }
  return keys;
}

function usesEnd(model: Model): boolean {
  return (
    model.config.kind === 'incremental_by_time_range' ||
    model.config.kind === 'incremental_by_unique_key' ||
    /@(start|end)_date\b/.test(model.sql)
  );
}

/**
 * What a singular test runs on, as one hash, the way `inputKeys` hashes a model's: its fingerprint (SQL with the
 * ephemeral models pasted in, macros, severity, threshold), `end` when its SQL reads it, the version of every source
 * it reads (itself or through a model above it), and the last build of every model above it, direct or not (run and
 * time in `states`, ops.model_state as the run's models left it; ephemeral models are pasted, not built). Any build
 * of a model above it moves the key, whatever made that model build (a new input, restated days, `--full-refresh`),
 * and so does a view's parent rebuilt under it. A test that passed on the same key would pass again, so a build may
 * reuse its result: this is what keeps a build with nothing new from re-running every test on all the data.
 */
export function testKey(
  project: Project,
  test: SingularTest,
  versions: ReadonlyMap<string, string>,
  states: ReadonlyMap<string, ModelStateRow>,
  end: string,
): string {
  // Always `end`: a test reads it as @end_date, or reads models that process up to it.
  const hash = createHash('sha256').update(`${test.fingerprint}|end=${end}`);
  const above = new Set(test.parents);
  for (const parent of test.parents) for (const a of reachable(project.graph.parents, parent)) above.add(a);
  for (const source of [...new Set([...test.sources, ...sourcesOf(project, above)])].sort()) {
    hash.update(`|${source}=${versions.get(source) ?? 'absent'}`);
  }
  for (const id of [...above].sort()) {
    if (project.models.get(id)?.config.kind === 'ephemeral') continue;
    const state = states.get(id);
    hash.update(`|${id}=${state ? `${state.run_id}@${state.built_at}` : 'never built'}`);
  }
  return hash.digest('hex').slice(0, 24);
}

/** Every source table the given models read, directly or through an ancestor. */
export function sourcesOf(project: Project, ids: Iterable<string>): Set<string> {
  const sources = new Set<string>();
  const seen = new Set<string>();
  const visit = (id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    const model = project.models.get(id);
    if (!model) return;
    for (const s of model.sources) sources.add(s);
    for (const p of model.parents) visit(p);
  };
  for (const id of ids) visit(id);
  return sources;
}

/**
 * The contents of what an incremental_by_time_range model reads that is not cut by day: its parents that are not
 * time-range models themselves (the prompt list, the tracked brands…) and its non-raw sources. A new day of
 * answers leaves this unchanged, so only the new days are processed; a renamed brand or an edited prompt changes
 * it, and since every old day may read it, the model is then rebuilt in full. Raw sources are the day-cut facts:
 * their late rows arrive within the model's `lookback`.
 */
export class DimensionKeys {
  private readonly contents = new Map<string, Promise<string>>();
  constructor(
    private readonly project: Project,
    private readonly versions: ReadonlyMap<string, string>,
  ) {}

  /** `exec`: the connection of the model being built (each model builds on its own). */
  async of(model: Model, exec: Session): Promise<string> {
    // Not the model's own SQL: a time-range model's new SQL applies to new days only (`--full-refresh` rebuilds).
    const hash = createHash('sha256');
    for (const source of model.sources) {
      if (!source.startsWith('raw.')) hash.update(`|${source}=${this.versions.get(source) ?? 'absent'}`);
    }
    for (const id of model.readParents) {
      const parent = this.project.models.get(id);
      if (!parent || parent.config.kind === 'incremental_by_time_range') continue;
      // An ephemeral parent is pasted into the model: what it reads counts, through it.
      const content =
        parent.config.kind === 'ephemeral'
          ? await this.of(parent, exec)
          : await this.content(parent, model.parentColumns.get(id) ?? '*', exec);
      hash.update(`|${id}=${content}`);
    }
    return hash.digest('hex').slice(0, 24);
  }

  /**
   * A hash of the parent's rows, restricted to the columns the child reads (computed once per build and column
   * set): a column the child never reads, such as the sync's `_extracted_at`, cannot change what it builds.
   */
  private async content(model: Model, read: ColumnsRead, exec: Session): Promise<string> {
    const rel = qualified(model.schema, model.name);
    let row = 't';
    if (read !== '*') {
      // DESCRIBE: the relation's columns in order, without scanning the whole catalogue as duckdb_columns() does.
      const columns = await exec.all<{ column_name: string }>(`DESCRIBE ${rel}`);
      const kept = columns.map((c) => c.column_name).filter((c) => read.has(c.toLowerCase()));
      row = kept.length ? `(${kept.map(quoteIdent).join(', ')})` : 'NULL';
    }
    const key = `${model.id}|${row}`;
    let content = this.contents.get(key);
    if (!content) {
      content = exec
        .scalar(`SELECT count(*) || '|' || coalesce(sum(hash(${row}))::VARCHAR, '') FROM ${rel} AS t`)
        .then(String);
      this.contents.set(key, content);
    }
    return content;
  }
}
