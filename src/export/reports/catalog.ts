/**
 * The named reports: `sql/reports/<name>.sql`, each a `/* @report … *\/` YAML header (title, description,
 * parameters with types and defaults, column docs) and one DuckDB query that reads its parameters as `$name`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { VwhError } from '../../core/errors.js';
import { nearestKey } from '../../core/nearest.js';

export const PARAMETER_NAMES = ['project', 'from', 'to'] as const;
export type ParameterName = (typeof PARAMETER_NAMES)[number];

const Parameter = z.object({
  type: z.enum(['VARCHAR', 'DATE']),
  default: z.null(),
  description: z.string(),
});

const Header = z.object({
  title: z.string(),
  description: z.string(),
  parameters: z.partialRecord(z.enum(PARAMETER_NAMES), Parameter).default({}),
  columns: z.record(z.string(), z.string()),
});

export interface Report extends z.output<typeof Header> {
  name: string;
  file: string;
  sql: string;
}

const HEADER = /^\s*\/\*\s*@report\b([\s\S]*?)\*\//;
const NAME = /^[a-z][a-z0-9_]*$/;

/** sql/reports of this checkout, or the one shipped beside the compiled CLI (searched upwards from here). */
export function defaultReportsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'sql', 'reports');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return resolve('sql', 'reports');
}

export function parseReport(name: string, file: string, text: string): Report {
  const match = HEADER.exec(text);
  if (!match) throw new VwhError('INTERNAL', `${file} has no /* @report … */ header.`);
  const lines = (match[1] ?? '').split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^\s*/.exec(l)?.[0].length ?? 0));
  const parsed = Header.safeParse(parseYaml(lines.map((l) => l.slice(indent)).join('\n')));
  if (!parsed.success) {
    throw new VwhError('INTERNAL', `${file}: the @report header is invalid: ${parsed.error.issues[0]?.message}`);
  }
  const sql = text.slice(match[0].length).trim().replace(/;\s*$/, '');
  for (const used of sql.matchAll(/\$([a-z_]+)/g)) {
    const param = used[1] ?? '';
    if (!(param in parsed.data.parameters)) {
      throw new VwhError('INTERNAL', `${file} uses $${used[1]} but its header declares no such parameter.`);
    }
  }
  return { name, file, sql, ...parsed.data };
}

/** Every report of `dir`, by name. */
export function loadReports(dir = defaultReportsDir()): Map<string, Report> {
  const reports = new Map<string, Report>();
  for (const entry of readdirSync(dir).sort()) {
    if (!entry.endsWith('.sql')) continue;
    const name = entry.slice(0, -4);
    if (!NAME.test(name)) continue;
    const file = join(dir, entry);
    reports.set(name, parseReport(name, file, readFileSync(file, 'utf8')));
  }
  return reports;
}

/** The report `name`, or USAGE naming the reports there are. */
export function findReport(name: string, reports = loadReports()): Report {
  const report = reports.get(name);
  if (!report) {
    // as a mistyped flag or config field gets
    const near = nearestKey(name, [...reports.keys(), 'html']);
    throw new VwhError(
      'USAGE',
      `Unknown report ${JSON.stringify(name.slice(0, 60))}.${near ? ` Did you mean ${near}?` : ''} ` +
        `Reports: ${[...reports.keys(), 'html'].join(', ')} (vwh report --list).`,
    );
  }
  return report;
}
