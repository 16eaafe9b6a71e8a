import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { VwhError } from '../core/errors.js';
import { quoteIdent, quoteLiteral } from '../core/sql.js';
import { Database } from '../warehouse/duckdb.js';
import { compileModel, ephemeralAncestors } from './compile.js';
import { parseQualifiedName } from './dependencies.js';
import { createMacros } from './macros.js';
import { describeError } from './results.js';
import { qualified, substituteMacros } from './sql-text.js';
import type { Project } from './types.js';

const rows = z.array(z.record(z.string(), z.unknown()));
const table = z.union([rows, z.strictObject({ columns: z.record(z.string(), z.string()).default({}), rows })]);
const unitSchema = z.strictObject({
  name: z.string().optional(),
  model: z.string(),
  description: z.string().optional(),
  vars: z.strictObject({ start_date: z.string().optional(), end_date: z.string().optional() }).default({}),
  inputs: z.record(z.string(), table).default({}),
  expected: z.union([rows, z.strictObject({ rows })]),
});

export interface UnitTestResult {
  name: string;
  path: string;
  model: string;
  status: 'pass' | 'fail' | 'error';
  message?: string;
}

/** The folders unit tests are read from (sub-folders included): `tests/unit/`, and `unit_tests/` as dbt names it. */
export const UNIT_TEST_DIRS = ['tests/unit', 'unit_tests'];

/** Every `.yaml|.yml|.json` file under the unit test folders; each is one test (or a list of tests). */
export async function runUnitTests(project: Project, filter?: (model: string) => boolean): Promise<UnitTestResult[]> {
  const out: UnitTestResult[] = [];
  for (const absPath of UNIT_TEST_DIRS.flatMap((d) => listFixtures(join(project.dir, d)))) {
    const file = basename(absPath);
    const path = relative(project.dir, absPath).split(sep).join('/');
    const text = readFileSync(absPath, 'utf8');
    let docs: unknown[];
    try {
      const parsed: unknown = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
      docs = Array.isArray(parsed) ? parsed : [parsed];
    } catch (error) {
      out.push({ name: file, path, model: '?', status: 'error', message: `${path}: ${(error as Error).message}` });
      continue;
    }
    for (const [i, doc] of docs.entries()) {
      const spec = unitSchema.safeParse(doc);
      const name = `${file.replace(/\.(ya?ml|json)$/, '')}${docs.length > 1 ? `#${i + 1}` : ''}`;
      if (!spec.success) {
        const issue = spec.error.issues[0];
        out.push({
          name,
          path,
          model: '?',
          status: 'error',
          message: `${path}: ${issue?.path.join('.')}: ${issue?.message}`,
        });
        continue;
      }
      if (filter && !filter(spec.data.model)) continue;
      out.push(await runOne(project, spec.data, spec.data.name ?? name, path));
    }
  }
  return out;
}

function listFixtures(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const full = join(dir, entry);
      if (statSync(full).isDirectory()) return listFixtures(full);
      return /\.(ya?ml|json)$/.test(entry) ? [full] : [];
    });
}

async function runOne(
  project: Project,
  spec: z.infer<typeof unitSchema>,
  name: string,
  path: string,
): Promise<UnitTestResult> {
  const base = { name, path, model: spec.model };
  const model = project.models.get(spec.model);
  if (!model) return { ...base, status: 'error', message: `${path}: no model named ${spec.model}` };
  const given = new Set(Object.keys(spec.inputs).map((k) => k.toLowerCase()));
  const inlined = new Set(ephemeralAncestors(project, model).map((m) => m.id));
  const reads = [
    ...model.readParents,
    ...model.sources,
    ...[...inlined].flatMap((id) => {
      const m = project.models.get(id);
      return m ? [...m.readParents, ...m.sources] : [];
    }),
  ].filter((t) => !inlined.has(t));
  const missing = [...new Set(reads)].filter((t) => !given.has(t.toLowerCase()));
  if (missing.length) {
    return {
      ...base,
      status: 'error',
      message: `${path}: give input rows for ${missing.join(', ')} (the model reads them)`,
    };
  }
  const db = await Database.open(':memory:');
  const scratch = mkdtempSync(join(tmpdir(), 'vwh-unit-'));
  try {
    await createMacros(project.macros, (sql) => db.session.run(sql));
    for (const [tableName, input] of Object.entries(spec.inputs)) {
      const { rows: data, columns } = Array.isArray(input) ? { rows: input, columns: {} } : input;
      const ref = parseQualifiedName(tableName);
      const rel = ref.schema ? qualified(ref.schema, ref.name) : quoteIdent(ref.name);
      if (ref.schema) await db.session.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(ref.schema)}`);
      await createInput(db, rel, data, columns, scratch);
    }
    const compiled = compileModel(project, model);
    const sql = substituteMacros(compiled.sql, {
      start_date: spec.vars.start_date ?? '1970-01-01',
      end_date: spec.vars.end_date ?? '9999-12-31',
    });
    const expectedRows = Array.isArray(spec.expected) ? spec.expected : spec.expected.rows;
    const columns = [...new Set(expectedRows.flatMap((r) => Object.keys(r)))];
    const select = columns.length
      ? columns.map((c) => `CAST(${quoteIdent(c)} AS VARCHAR) AS ${quoteIdent(c)}`).join(', ')
      : '*';
    let actual: Record<string, unknown>[];
    try {
      actual = await db.session.all(`SELECT ${select} FROM (${sql}\n) AS q`);
    } catch (error) {
      return { ...base, status: 'error', message: describeError(model.path, error, model.sqlLine, compiled) };
    }
    const diff = compareRows(actual, expectedRows, columns);
    return diff ? { ...base, status: 'fail', message: diff } : { ...base, status: 'pass' };
  } finally {
    db.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function createInput(
  db: Database,
  rel: string,
  data: Record<string, unknown>[],
  columns: Record<string, string>,
  scratch: string,
): Promise<void> {
  if (data.length === 0) {
    if (Object.keys(columns).length === 0) {
      throw new VwhError('USAGE', `input ${rel} has no rows: give its columns ({columns: {name: TYPE}, rows: []})`);
    }
    const defs = Object.entries(columns).map(([c, t]) => `${quoteIdent(c)} ${t}`);
    await db.session.run(`CREATE TABLE ${rel} (${defs.join(', ')})`);
    return;
  }
  const file = join(scratch, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(data));
  const casts = Object.entries(columns).map(([c, t]) => `CAST(${quoteIdent(c)} AS ${t}) AS ${quoteIdent(c)}`);
  const replace = casts.length ? ` REPLACE (${casts.join(', ')})` : '';
  await db.session.run(`CREATE TABLE ${rel} AS SELECT *${replace} FROM read_json_auto(${quoteLiteral(file)})`);
}

/** Order-insensitive comparison of the expected columns; numbers compare as numbers. Returns a diff or undefined. */
export function compareRows(
  actual: Record<string, unknown>[],
  expected: Record<string, unknown>[],
  columns: string[],
): string | undefined {
  const key = (row: Record<string, unknown>) => JSON.stringify(columns.map((c) => normalise(row[c])));
  const remaining = new Map<string, number>();
  for (const row of actual) remaining.set(key(row), (remaining.get(key(row)) ?? 0) + 1);
  const missing: string[] = [];
  for (const row of expected) {
    const k = key(row);
    const n = remaining.get(k) ?? 0;
    if (n > 0) remaining.set(k, n - 1);
    else missing.push(k);
  }
  const unexpected = [...remaining.entries()].flatMap(([k, n]) => Array<string>(n).fill(k));
  if (missing.length === 0 && unexpected.length === 0) return undefined;
  const lines = [`columns ${JSON.stringify(columns)}`];
  for (const m of missing) lines.push(`  expected but missing: ${m}`);
  for (const u of unexpected) lines.push(`  returned but not expected: ${u}`);
  return lines.join('\n');
}

function normalise(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  const text = String(value);
  const n = Number(text);
  if (text.trim() !== '' && Number.isFinite(n)) return String(Math.round(n * 1e9) / 1e9);
  return text;
}
