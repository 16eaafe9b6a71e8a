import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { type AuditSpec, parseAudit } from './audits/spec.js';
import { isPlainJson, TextMemo } from './parse-cache.js';
import { MODEL_KINDS, type ModelConfig } from './types.js';

/** The leading `/* @model ... *\/` (or `/* @test ... *\/`) block of a file, and the SQL after it. */
export interface SplitFile {
  header: Record<string, unknown>;
  hasHeader: boolean;
  sql: string;
  /** 1-based line of the file where `sql` starts. */
  sqlLine: number;
}

const HEADER = /^\s*\/\*\s*@(model|test)\b([\s\S]*?)\*\//;

/** Splits a file into its YAML header (a block comment, so the file stays valid SQL) and its SQL. */
export function splitFile(text: string, tag: 'model' | 'test'): SplitFile {
  const match = HEADER.exec(text);
  if (!match || match[1] !== tag) {
    return { header: {}, hasHeader: false, sql: text, sqlLine: 1 };
  }
  const yamlText = dedent(match[2] ?? '');
  let header: unknown;
  try {
    header = parsedYaml(yamlText);
  } catch (error) {
    // yaml counts lines from the header's first YAML line; say the line of the file instead.
    const tagLine = text.slice(0, match.index + match[0].indexOf(`@${tag}`)).split('\n').length;
    const firstYamlLine = /^[^\n]*\n/.exec(match[2] ?? '')?.[0].trim() === '' ? tagLine + 1 : tagLine;
    const at = (error as { linePos?: Array<{ line: number }> }).linePos?.[0]?.line;
    const where = at === undefined ? '' : ` (line ${firstYamlLine + at - 1} of the file)`;
    const reason = (error as Error).message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '');
    throw new Error(`the @${tag} header is not valid YAML${where}: ${reason}`);
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    throw new Error(`the @${tag} header must be a YAML map (key: value lines)`);
  }
  const consumed = match[0];
  return {
    header: header as Record<string, unknown>,
    hasHeader: true,
    sql: text.slice(consumed.length),
    sqlLine: consumed.split('\n').length,
  };
}

/**
 * Each header's YAML as parsed, by its text, for the life of the process and in the project's parse cache
 * (parse-cache.ts). A header whose parse JSON would not give back the same (a YAML date) is kept for the process only.
 */
export const HEADERS = new TextMemo<unknown>(
  'headers',
  (value) => (isPlainJson(value) ? value : undefined),
  (json) => json,
);

/**
 * The header's YAML parsed. The answer depends on the text alone, so it is kept (`HEADERS`): the yaml parser's work on
 * every header on each load was a visible cost (docs/lab/2026-11-code-constants.md#the-models), and a load parses only
 * the headers that changed. Each caller gets its own copy; a text that fails is not kept.
 */
function parsedYaml(yamlText: string): unknown {
  if (yamlText.trim() === '') return {};
  let parsed = HEADERS.get(yamlText);
  if (parsed === undefined) {
    parsed = parseYaml(yamlText);
    HEADERS.set(yamlText, parsed);
  }
  return structuredClone(parsed);
}

function dedent(text: string): string {
  const lines = text.replace(/^[^\n]*\n/, (first) => (first.trim() === '' ? '' : first)).split('\n');
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)?.[0].length ?? 0);
  const min = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(Math.min(min, /^ */.exec(l)?.[0].length ?? 0))).join('\n');
}

const list = z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v : [v]));
const isoDay = z.union([
  z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD'),
  z.date().transform((d) => d.toISOString().slice(0, 10)),
]);

const headerSchema = z.strictObject({
  name: z.string().optional(),
  kind: z.enum(MODEL_KINDS).default('view'),
  description: z.string().optional(),
  grain: z.string().optional(),
  tags: list.default([]),
  columns: z.record(z.string(), z.string().nullable()).default({}),
  audits: z.array(z.unknown()).default([]),
  depends_on: list.default([]),
  time_column: z.string().optional(),
  start: isoDay.optional(),
  lookback: z.number().int().min(0).default(0),
  reads_back: z.number().int().min(0).default(0),
  batch_days: z.number().int().min(0).default(0),
  batch_rows: z.number().int().min(0).default(0),
  restate_landed: list.default([]),
  unique_key: list.default([]),
  strategy: z.enum(['delete+insert', 'merge', 'check', 'timestamp']).optional(),
  check_columns: list.default([]),
  updated_at: z.string().optional(),
  snapshot_time_column: z.string().optional(),
  invalidate_hard_deletes: z.boolean().default(true),
  path: z.string().optional(),
  format: z.enum(['parquet', 'csv']).default('parquet'),
  compression: z.string().default('zstd'),
});

/** Validates a model header and applies defaults; throws an Error whose message names the offending key. */
export function parseModelHeader(header: Record<string, unknown>): ModelConfig & { name?: string } {
  const parsed = headerSchema.safeParse(header);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new Error(`header ${where}${issue?.message ?? 'invalid'}`);
  }
  const h = parsed.data;
  const audits: AuditSpec[] = h.audits.map((entry, i) => parseAudit(entry, i));
  const config: ModelConfig & { name?: string } = {
    kind: h.kind,
    tags: h.tags,
    columns: Object.fromEntries(Object.entries(h.columns).map(([k, v]) => [k, v ?? ''])),
    audits,
    dependsOn: h.depends_on,
    lookback: h.lookback,
    readsBack: h.reads_back,
    batchDays: h.batch_days,
    batchRows: h.batch_rows,
    restateLanded: h.restate_landed,
    uniqueKey: h.unique_key,
    strategy: 'delete+insert',
    scd2Strategy: 'check',
    checkColumns: h.check_columns,
    invalidateHardDeletes: h.invalidate_hard_deletes,
    exportFormat: h.format,
    compression: h.compression,
  };
  if (h.name !== undefined) config.name = h.name;
  if (h.description !== undefined) config.description = h.description;
  if (h.grain !== undefined) config.grain = h.grain;
  if (h.time_column !== undefined) config.timeColumn = h.time_column;
  if (h.start !== undefined) config.start = h.start;
  if (h.updated_at !== undefined) config.updatedAt = h.updated_at;
  if (h.snapshot_time_column !== undefined) config.snapshotTimeColumn = h.snapshot_time_column;
  if (h.path !== undefined) config.exportPath = h.path;
  checkKind(config, h.strategy);
  return config;
}

function checkKind(config: ModelConfig, strategy: string | undefined): void {
  const need = (ok: boolean, message: string) => {
    if (!ok) throw new Error(`header: kind ${config.kind} ${message}`);
  };
  switch (config.kind) {
    case 'incremental_by_time_range':
      need(config.timeColumn !== undefined, 'needs time_column');
      break;
    case 'incremental_by_unique_key':
      need(config.uniqueKey.length > 0, 'needs unique_key');
      need(
        strategy === undefined || strategy === 'delete+insert' || strategy === 'merge',
        'strategy is delete+insert or merge',
      );
      config.strategy = (strategy as 'delete+insert' | 'merge' | undefined) ?? 'delete+insert';
      break;
    case 'scd2':
      need(config.uniqueKey.length > 0, 'needs unique_key');
      need(
        strategy === undefined || strategy === 'check' || strategy === 'timestamp',
        'strategy is check or timestamp',
      );
      config.scd2Strategy =
        (strategy as 'check' | 'timestamp' | undefined) ??
        (config.updatedAt && !config.snapshotTimeColumn ? 'timestamp' : 'check');
      need(
        config.scd2Strategy !== 'timestamp' || config.updatedAt !== undefined,
        'with strategy timestamp needs updated_at',
      );
      need(
        config.scd2Strategy !== 'timestamp' || config.snapshotTimeColumn === undefined,
        'with strategy timestamp dates its rows by updated_at: snapshot_time_column is for strategy check',
      );
      break;
    case 'export':
      need(config.exportPath !== undefined, 'needs path (the file to write)');
      break;
    default:
      need(strategy === undefined, 'takes no strategy');
  }
  if (config.kind !== 'incremental_by_time_range') {
    need(config.restateLanded.length === 0, 'takes no restate_landed (incremental_by_time_range only)');
    need(config.readsBack === 0, 'takes no reads_back (incremental_by_time_range only)');
  }
  need(
    config.restateLanded.every((t) => /^raw\.[A-Za-z_][A-Za-z0-9_]*$/.test(t)),
    'restate_landed lists raw tables (raw.name) the model reads, with its time_column and _extracted_at',
  );
  if (config.kind !== 'scd2') {
    need(config.snapshotTimeColumn === undefined, 'takes no snapshot_time_column (scd2 only)');
  }
}

const testSchema = z.strictObject({
  name: z.string().optional(),
  description: z.string().optional(),
  severity: z.enum(['error', 'warn']).default('error'),
  threshold: z.number().int().min(0).default(0),
  depends_on: list.default([]),
});

export function parseTestHeader(header: Record<string, unknown>): z.infer<typeof testSchema> {
  const parsed = testSchema.safeParse(header);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`header ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}
