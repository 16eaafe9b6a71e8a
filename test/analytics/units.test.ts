/**
 * One unit, people's precision (issue 54, item 5), checked mechanically on two reference worlds: every rate column of
 * the marts and the reports is a percentage ending `_pct` (a difference `_pp`), found by name and by the values it
 * takes, so a new column of fractions fails here; CSV and Markdown round to the decimals a person reads while JSON
 * keeps them; reports lead with names; rows come in the order of their rank; a score's stated range is the one it takes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { loadReports } from '../../src/export/reports/catalog.js';
import type { ReportResult } from '../../src/export/reports/formats.js';
import { isFractional, peopleDecimals } from '../../src/export/reports/precision.js';
import { runReport, writeReport } from '../../src/export/reports/run.js';
import { loadProject } from '../../src/models/project.js';
import { runProject } from '../../src/models/runner.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { MODELS_DIR, type SyncedWorld, syncWorld, WORLD, WORLD_TODAY, type WorldShape } from './support.js';

/** Fractional columns that are not rates, by what they are: probabilities, weights, ranks and 0–100 scores. */
const NOT_RATES: Array<[RegExp, string]> = [
  [/^p_|_p_value$/, 'a probability (0–1)'],
  [/_weight$|^shrinkage$/, 'a weight (0–1)'],
  [/position|sentiment/, 'a position (1, 2, …) or a sentiment score (0–100)'],
];
/** A name that says "rate": it must carry its unit. */
const RATE_WORDS = /visibility|share|rate|reach|density|gap|sov/;
const UNIT = /_(pct|pp)$/;
/** Each id after the name that says what it is. */
const NAME_OF: Record<string, string> = {
  project_id: 'project_name',
  prompt_id: 'prompt_content',
  brand_id: 'brand_name',
  brand_key: 'brand_name',
  action_id: 'title',
  competitor_id: 'competitor_name',
};

/** Why a fractional column of fractions (values in [0, 1]) or of a rate's name breaks the rule, or null. */
function unitProblem(column: string, min: number | null, max: number | null): string | null {
  if (UNIT.test(column)) return null;
  if (NOT_RATES.some(([re]) => re.test(column))) return null;
  if (RATE_WORDS.test(column)) return `${column}: a rate's name without _pct or _pp`;
  if (min !== null && max !== null && min >= 0 && max <= 1 && max > 0) {
    return `${column}: values in [0, 1] (${min}..${max}), neither _pct/_pp nor a probability or a weight`;
  }
  return null;
}

const decimalsOf = (text: string) => /\.(\d+)$/.exec(text)?.[1]?.length ?? 0;

const SHAPES: WorldShape[] = [WORLD, { seed: 31, projects: 2, prompts: 7, historyDays: 60, ownShifts: 1 }];

interface MartColumn {
  table_name: string;
  column_name: string;
  lo: number | null;
  hi: number | null;
}

describe.each(SHAPES)('units and precision on the world of seed $seed', (shape) => {
  let world: SyncedWorld;
  let martColumns: MartColumn[] = [];
  const reports = new Map<string, ReportResult>();
  let scores: Array<{ project_id: string; lo: number; hi: number; n: number }> = [];
  beforeAll(async () => {
    world = await syncWorld(shape);
    // built, then read, then closed: the reports below open the file read-only as vwh report does
    const db = await Database.open(world.dbPath);
    try {
      const built = await runProject(db, await loadProject(MODELS_DIR), {
        command: 'build',
        clock: new ManualClock(Date.parse(`${WORLD_TODAY}T00:00:00Z`) + 27 * 3_600_000),
        logger: silentLogger,
      });
      const failed = built.results.filter((r) => r.type === 'model' && r.status === 'error');
      expect(failed.map((r) => `${r.id}: ${r.message}`)).toEqual([]);
      const columns = await db.session.all<{ table_name: string; column_name: string }>(`
        select table_name, column_name from information_schema.columns
        where table_schema = 'marts' and (data_type in ('DOUBLE', 'FLOAT') or data_type like 'DECIMAL%')
        order by table_name, ordinal_position`);
      martColumns = [];
      for (const c of columns) {
        const [range] = await db.session.all<{ lo: number | null; hi: number | null }>(
          `select min("${c.column_name}")::double as lo, max("${c.column_name}")::double as hi from marts."${c.table_name}"`,
        );
        martColumns.push({ ...c, lo: range?.lo ?? null, hi: range?.hi ?? null });
      }
      for (const [name, report] of loadReports()) reports.set(name, await runReport(db, report, {}));
      scores = await db.session.all(`
        select project_id, min(opportunity_score) as lo, max(opportunity_score) as hi,
          count(opportunity_score)::int as n
        from marts.source_opportunities group by project_id`);
    } finally {
      db.close();
    }
  }, 300_000);
  afterAll(async () => {
    await world?.cleanup();
  });

  it('every rate column of every mart is a percentage (_pct) or points (_pp)', () => {
    expect(martColumns.length).toBeGreaterThan(50);
    const problems = martColumns
      .map((c) => unitProblem(c.column_name, c.lo, c.hi))
      .map((problem, i) => problem && `marts.${martColumns[i]?.table_name}.${problem}`)
      .filter((p) => p !== null);
    expect(problems).toEqual([]);
  });

  it('every report: rates in _pct/_pp, names before ids, rows in the order of their rank', () => {
    const problems: string[] = [];
    expect(reports.size).toBeGreaterThan(5);
    for (const [name, { columns, typeIds, rows }] of reports) {
      expect(columns.slice(0, 2), name).toEqual(['project_name', 'project_id']);
      for (const [id, label] of Object.entries(NAME_OF)) {
        if (columns.includes(id) && columns.includes(label)) {
          expect(columns.indexOf(label), `${name}: ${label} before ${id}`).toBeLessThan(columns.indexOf(id));
        }
      }
      columns.forEach((column, i) => {
        if (!isFractional(typeIds[i])) return;
        const values = rows.map((r) => r[i]).filter((v): v is number => typeof v === 'number');
        const problem = unitProblem(
          column,
          values.length ? Math.min(...values) : null,
          values.length ? Math.max(...values) : null,
        );
        if (problem) problems.push(`${name}.${problem}`);
      });
      // ranks run 1, 2, 3 … and start again at 1 for the next project, provider or list (issue 54: 6, 12, 1, 2)
      for (const [i, column] of columns.entries()) {
        if (column !== 'rank' && !column.endsWith('_rank')) continue;
        const ranks = rows
          .map((r) => r[i])
          .filter((v) => v !== null && v !== undefined)
          .map(Number);
        expect(ranks.length, `${name}.${column}`).toBeGreaterThan(0);
        ranks.forEach((rank, k) => {
          if (rank !== 1 && rank !== (ranks[k - 1] ?? 0) + 1)
            problems.push(`${name}.${column}: ${ranks[k - 1]}, ${rank}`);
        });
      }
    }
    expect(problems).toEqual([]);
  });

  it('CSV and Markdown round to the decimals a person reads; JSON keeps every decimal', async () => {
    let rounded = 0;
    let whole = 0;
    const reader = await Database.open(':memory:');
    for (const [name, result] of reports) {
      const csv = join(world.dir, `${name}.csv`);
      const md = join(world.dir, `${name}.md`);
      const json = join(world.dir, `${name}.json`);
      await writeReport({ db: world.dbPath, name, format: 'csv', out: csv });
      await writeReport({ db: world.dbPath, name, format: 'md', out: md });
      await writeReport({ db: world.dbPath, name, format: 'json', out: json });
      const fractional = result.columns.filter((_, i) => isFractional(result.typeIds[i]));
      if (fractional.length === 0) continue;
      // CSV as DuckDB reads it back, every field as its text
      const cells = await reader.session.all<Record<string, string | null>>(
        `select * from read_csv('${csv}', header = true, all_varchar = true)`,
      );
      expect(cells.length, name).toBe(result.rows.length);
      const lines = readFileSync(md, 'utf8').split('\n');
      const header = lines.findIndex((l) => l.startsWith(`| ${result.columns[0]} |`));
      const table = lines
        .slice(header + 2)
        .filter((l) => l.startsWith('|'))
        .map((l) => l.slice(2, -2).split(/ (?<!\\)\| /));
      expect(table.length, name).toBe(result.rows.length);
      const objects = JSON.parse(readFileSync(json, 'utf8')) as Array<Record<string, unknown>>;
      for (const column of fractional) {
        const max = peopleDecimals(column);
        const at = result.columns.indexOf(column);
        for (const [k, row] of cells.entries()) {
          const text = row[column] ?? '';
          expect(decimalsOf(text), `${name}.csv ${column} ${text}`).toBeLessThanOrEqual(max);
          const cell = table[k]?.[at] ?? '';
          expect(decimalsOf(cell), `${name}.md ${column} ${cell}`).toBeLessThanOrEqual(max);
          if (text.includes('.')) rounded += 1;
          const full = objects[k]?.[column];
          if (typeof full === 'number' && decimalsOf(String(full)) > max) whole += 1;
        }
      }
    }
    reader.close();
    expect(rounded).toBeGreaterThan(100);
    // the same rows' JSON keeps what the CSV rounded (issue 54: 0.3452 in one report, 42.28 in another)
    expect(whole).toBeGreaterThan(100);
  }, 120_000);

  it("states the source opportunity score's range and takes it: 0–100, each project's best domain 100", () => {
    expect(scores).toHaveLength(shape.projects);
    for (const s of scores) {
      expect(s.n).toBeGreaterThan(0);
      expect(s.lo).toBeGreaterThanOrEqual(0);
      expect(s.hi).toBe(100);
    }
    const [report] =
      loadReports()
        .get('source_opportunities')
        ?.description.match(/0–100[^)]*/) ?? [];
    expect(report).toContain("the project's best domain 100");
  });
});
