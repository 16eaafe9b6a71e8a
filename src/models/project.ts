import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VwhError } from '../core/errors.js';
import type { ColumnsRead } from './columns-read.js';
import { compileModel, ephemeralAncestors } from './compile.js';
import { DependencyReader, type TableRef } from './dependencies.js';
import { fingerprint } from './fingerprint.js';
import { buildGraph } from './graph.js';
import { parseModelHeader, parseTestHeader, type SplitFile, splitFile } from './header.js';
import { loadMacros, macrosCalledBy, macrosFingerprint } from './macros.js';
import { beginLoad, readParseCache, writeParseCache } from './parse-cache.js';
import { MODEL_SCHEMAS, type Model, type Project, type SingularTest } from './types.js';

export const DEFAULT_MODELS_DIR = 'dbt-like-models';

/**
 * The models shipped with vwh (dbt-like-models/ at the package root, found from this file whether it runs from
 * src/ or dist/src/): the default models folder wherever the command runs, not ./dbt-like-models of the working
 * directory. A user's own folder is `--models-dir` or `models.dir` in the config.
 */
export function shippedModelsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, DEFAULT_MODELS_DIR);
    if (existsSync(join(candidate, 'marts'))) return candidate;
    dir = dirname(dir);
  }
  throw new VwhError('INTERNAL', `The models shipped with vwh (${DEFAULT_MODELS_DIR}/) are missing from the package.`);
}

export interface LoadOptions {
  /** Schemas whose tables are sources, readable without declaration. Default `raw`. */
  sourceSchemas?: string[];
  /**
   * The parse cache to read before the load and write after it (`target/partial_parse.json`; parse-cache.ts): the
   * files whose text it holds are not parsed again.
   */
  parseCache?: string;
}

/**
 * Reads every model file under the models directory (`staging/`, `intermediate/`, `marts/`, `snapshots/`) and every
 * singular test (`tests/*.sql`), and resolves each one's inputs into model edges and sources.
 */
export async function loadProject(dir: string, options: LoadOptions = {}): Promise<Project> {
  const root = resolve(dir);
  if (!existsSync(root)) {
    throw new VwhError('USAGE', `The models directory ${dir} does not exist (set it with --models-dir).`);
  }
  const sourceSchemas = (options.sourceSchemas ?? ['raw']).map((s) => s.toLowerCase());
  beginLoad();
  if (options.parseCache) readParseCache(options.parseCache);
  const models = new Map<string, Model>();
  const pending: { model: Model; refs: TableRef[] }[] = [];
  const reader = await DependencyReader.create();
  // Each file is read and split once, and its tables' read (a DuckDB round trip, mostly waiting)
  // started at once for all of them; the loops below take them in file order, so errors come in the same order as
  // from reading one by one.
  const sourceFiles = (paths: string[], kind: 'model' | 'test'): SourceFile[] =>
    paths.map((absPath) => {
      try {
        const split = splitFile(readFileSync(absPath, 'utf8'), kind);
        return { absPath, split, refs: reader.read(split.sql).catch((error: unknown) => error as Error) };
      } catch (error) {
        return { absPath, error };
      }
    });
  const modelFiles = MODEL_SCHEMAS.map(
    (schema) => [schema, sourceFiles(listSql(join(root, schema)), 'model')] as const,
  );
  const testFiles = sourceFiles(listSql(join(root, 'tests'), false), 'test');
  try {
    for (const [schema, files] of modelFiles) {
      for (const file of files) {
        const { absPath } = file;
        const path = relative(root, absPath).split(sep).join('/');
        const name = absPath.slice(absPath.lastIndexOf(sep) + 1).replace(/\.sql$/, '');
        const id = `${schema}.${name}`;
        const fail = (message: string, cause?: unknown) =>
          new VwhError('MODEL_GRAPH', `${path}: ${message}`, { cause, details: { model: id, path } });
        let split: SplitFile;
        let read: Promise<TableRef[] | Error>;
        let config: ReturnType<typeof parseModelHeader>;
        try {
          ({ split, refs: read } = opened(file));
          config = parseModelHeader(split.header);
        } catch (error) {
          throw fail((error as Error).message, error);
        }
        if (config.name !== undefined && config.name.toLowerCase() !== id.toLowerCase() && config.name !== name) {
          throw fail(`the header says name ${config.name} but the file's place makes it ${id}; rename the file.`);
        }
        if (models.has(id)) throw fail(`a second model named ${id} (also ${models.get(id)?.path})`);
        const refs = await read;
        if (refs instanceof Error) {
          throw fail(`not a valid single SELECT: ${shiftLine(refs.message, split.sqlLine)}`, refs);
        }
        const { name: _n, ...modelConfig } = config;
        const model: Model = {
          id,
          schema,
          name,
          path,
          absPath,
          sql: split.sql,
          sqlLine: split.sqlLine,
          config: modelConfig,
          parents: [],
          readParents: [],
          parentColumns: new Map(),
          sources: [],
          fingerprint: fingerprint(split.sql, modelConfig),
        };
        models.set(id, model);
        pending.push({ model, refs });
      }
    }
    const byLower = new Map([...models.keys()].map((id) => [id.toLowerCase(), id]));
    for (const { model, refs } of pending) {
      const resolved = resolveRefs(refs, model.config.dependsOn, model.id, model.path, byLower, sourceSchemas);
      // A relationships audit reads its `to` model, so that model must be built first.
      const auditParents = model.config.audits
        .filter((a) => a.type === 'relationships' && a.to)
        .map((a) => byLower.get((a.to as string).toLowerCase()))
        .filter((id): id is string => id !== undefined && id !== model.id);
      model.parents = [...new Set([...resolved.parents, ...auditParents])].sort();
      model.readParents = resolved.parents;
      model.sources = resolved.sources;
      const unread = model.config.restateLanded.filter((t) => !resolved.sources.includes(t));
      if (unread.length > 0) {
        throw new VwhError(
          'MODEL_GRAPH',
          `${model.path}: restate_landed names ${unread.join(', ')}, which the model does not read (it reads ${resolved.sources.join(', ') || 'no raw table'})`,
        );
      }
      model.parentColumns = parentColumns(refs, model.config.dependsOn, byLower);
    }
    const tests: SingularTest[] = [];
    for (const file of testFiles) {
      const { absPath } = file;
      const path = relative(root, absPath).split(sep).join('/');
      try {
        const { split, refs: read } = opened(file);
        const header = parseTestHeader(split.header);
        const refs = await read;
        if (refs instanceof Error) throw refs;
        const resolved = resolveRefs(refs, header.depends_on, '', path, byLower, sourceSchemas);
        tests.push({
          id: `test.${header.name ?? path.replace(/^tests\//, '').replace(/\.sql$/, '')}`,
          path,
          absPath,
          sql: split.sql,
          sqlLine: split.sqlLine,
          severity: header.severity,
          threshold: header.threshold,
          parents: resolved.parents,
          sources: resolved.sources,
          fingerprint: '',
        });
      } catch (error) {
        if (error instanceof VwhError) throw error;
        throw new VwhError('MODEL_GRAPH', `${path}: ${(error as Error).message}`, { cause: error });
      }
    }
    const macros = loadMacros(root);
    const project: Project = {
      dir: root,
      models,
      tests,
      sourceSchemas,
      macros,
      graph: buildGraph(models),
      warnings: [
        ...strayFiles(root),
        ...[...models.values()]
          .filter((m) => m.config.kind === 'ephemeral' && m.config.audits.length > 0)
          .map(
            (m) => `${m.path}: an ephemeral model is not stored, so its audits never run; audit the models reading it`,
          ),
      ],
    };
    // A model's fingerprint covers the ephemeral models pasted into it and the macros it calls: changing one
    // changes what it builds.
    for (const model of models.values()) {
      const inlined = ephemeralAncestors(project, model).length > 0;
      const sql = inlined ? compileModel(project, model).sql : model.sql;
      const called = macrosFingerprint(macrosCalledBy(sql, macros));
      if (!inlined && called === '') continue;
      model.fingerprint = fingerprint(called === '' ? sql : `${sql}\n-- macros ${called}`, model.config);
    }
    // A test's the same way, always (its severity and threshold decide its status).
    for (const test of tests) {
      const sql = compileModel(project, test).sql;
      const called = macrosFingerprint(macrosCalledBy(sql, macros));
      test.fingerprint = fingerprint(`${sql}\n-- macros ${called}`, {
        severity: test.severity,
        threshold: test.threshold,
      });
    }
    if (options.parseCache) writeParseCache(options.parseCache);
    return project;
  } finally {
    reader.close();
  }
}

/** What the SQL reads of each parent model; a parent named only in `depends_on` counts as read in full. */
function parentColumns(refs: TableRef[], dependsOn: string[], models: Map<string, string>): Map<string, ColumnsRead> {
  const read = new Map<string, ColumnsRead>();
  for (const dep of dependsOn) {
    const id = models.get(dep.toLowerCase());
    if (id) read.set(id, '*');
  }
  for (const ref of refs) {
    const id = models.get((ref.schema ? `${ref.schema}.${ref.name}` : ref.name).toLowerCase());
    if (id && !read.has(id)) read.set(id, ref.columns ?? '*');
  }
  return read;
}

function resolveRefs(
  refs: TableRef[],
  dependsOn: string[],
  selfId: string,
  path: string,
  models: Map<string, string>,
  sourceSchemas: string[],
): { parents: string[]; sources: string[] } {
  const parents = new Set<string>();
  const sources = new Set<string>();
  const declared = new Set(dependsOn.map((d) => d.toLowerCase()));
  for (const dep of dependsOn) {
    const id = models.get(dep.toLowerCase());
    if (id) parents.add(id);
  }
  for (const ref of refs) {
    const full = ref.schema ? `${ref.schema}.${ref.name}` : ref.name;
    const key = full.toLowerCase();
    const modelId = models.get(key);
    if (modelId) {
      if (modelId !== selfId) parents.add(modelId);
      continue;
    }
    if ((ref.schema && sourceSchemas.includes(ref.schema.toLowerCase())) || declared.has(key)) {
      sources.add(full);
      continue;
    }
    const hint = ref.schema ? '' : suggest(ref.name, models);
    throw new VwhError(
      'MODEL_GRAPH',
      `${path}: reads table ${full}, which is neither a model nor a source (${sourceSchemas.map((s) => `${s}.*`).join(', ')}). ` +
        `Reference models as schema.name${hint}, or declare it in the header's depends_on.`,
      { details: { path, table: full } },
    );
  }
  return { parents: [...parents].sort(), sources: [...sources].sort() };
}

function suggest(name: string, models: Map<string, string>): string {
  const match = [...models.values()].find((id) => id.toLowerCase().endsWith(`.${name.toLowerCase()}`));
  return match ? ` (did you mean ${match}?)` : '';
}

/** DuckDB numbers lines from the SELECT; the file has the header above it. */
export function shiftLine(message: string, sqlLine: number): string {
  return message.replace(/LINE (\d+):/, (_m, n: string) => `LINE ${Number(n) + sqlLine - 1} of the file:`);
}

/** `.sql` files the runner does not read: at the top, in an unknown folder, or in a sub-folder of tests/. */
function strayFiles(root: string): string[] {
  const known = new Set<string>([...MODEL_SCHEMAS, 'tests', 'macros']);
  const stray: string[] = [];
  for (const entry of readdirSync(root).sort()) {
    const full = join(root, entry);
    if (statSync(full).isDirectory()) {
      if (entry === 'tests') {
        for (const sub of readdirSync(full).sort()) {
          if (statSync(join(full, sub)).isDirectory()) stray.push(...listSql(join(full, sub)));
        }
      } else if (!known.has(entry)) stray.push(...listSql(full));
    } else if (entry.endsWith('.sql')) stray.push(full);
  }
  return stray.map(
    (file) =>
      `${relative(root, file).split(sep).join('/')} is not read: models live in ${MODEL_SCHEMAS.map((s) => `${s}/`).join(', ')}, singular tests directly in tests/, macros in macros/`,
  );
}

function listSql(dir: string, recursive = true): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) {
      if (recursive) out.push(...listSql(full));
    } else if (entry.endsWith('.sql')) out.push(full);
  }
  return out;
}

/** A model or test file, read and split once (or what failed), with its tables' read under way. */
type SourceFile =
  | { absPath: string; split: SplitFile; refs: Promise<TableRef[] | Error>; error?: undefined }
  | { absPath: string; error: unknown; split?: undefined; refs?: undefined };

/** The file's split and tables, or the error reading or splitting it, thrown where the file's turn comes. */
function opened(file: SourceFile): { split: SplitFile; refs: Promise<TableRef[] | Error> } {
  if (file.split === undefined) throw file.error;
  return file;
}
