/**
 * The named reports on a synced, modelled world: every report in every format, CSV that parses back to the same
 * rows as JSON, parameters bound and checked, figures that add up; and the Arrow export of a real mart.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VwhError } from '../../src/core/errors.js';
import { uniqueLabels } from '../../src/export/html/chart-parts.js';
import { exportArrow, loadReports, writeHtmlReport, writeReport } from '../../src/export/index.js';
import { peopleDecimals } from '../../src/export/reports/precision.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { tempDir } from '../fixtures.js';
import { buildExportWorld, CHROMIUM, type ExportWorld, type HtmlFigure, readHtmlSections } from './support.js';

let world: ExportWorld;
let out: string;
beforeAll(async () => {
  world = await buildExportWorld();
  out = tempDir('vwh-reports-').dir;
}, 300_000);
afterAll(() => {
  world?.cleanup();
  if (out) rmSync(out, { recursive: true, force: true });
});

/** RFC 4180 parser (quoted fields, doubled quotes, CRLF records), to read the CSV back as another tool would. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  return rows;
}

/** The CSV text of a one-off report `name` (the columns of its @report header, its query) on the test world. */
async function adHocCsv(name: string, columns: string, sql: string): Promise<string> {
  const dir = tempDir('vwh-csv-reports-').dir;
  try {
    writeFileSync(
      join(dir, `${name}.sql`),
      `/* @report\ntitle: ${name}\ndescription: a test report\ncolumns: {${columns}}\n*/\n${sql}`,
    );
    const file = join(out, `${name}.csv`);
    await writeReport({ db: world.db, name, format: 'csv', out: file, reportsDir: dir });
    return readFileSync(file, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function query<T extends Record<string, unknown>>(sql: string): Promise<T[]> {
  const db = await Database.open(world.db, { access_mode: 'READ_ONLY' });
  try {
    return await db.session.all<T>(sql);
  } finally {
    db.close();
  }
}

describe('reports', () => {
  it('every report writes CSV, JSON and Markdown with the same rows; CSV columns are the documented ones', async () => {
    const reports = loadReports();
    expect([...reports.keys()].sort()).toEqual([
      'action_impact',
      'changes',
      'competitor_gaps',
      'prompt_opportunities',
      'share_of_voice',
      'source_opportunities',
      'weekly_visibility',
      'wow_movers',
    ]);
    for (const [name, report] of reports) {
      const csv = await writeReport({ db: world.db, name, format: 'csv', out: join(out, `${name}.csv`) });
      const json = await writeReport({ db: world.db, name, format: 'json', out: join(out, `${name}.json`) });
      const md = await writeReport({ db: world.db, name, format: 'md', out: join(out, `${name}.md`) });
      expect(csv.rows, name).toBeGreaterThan(0);
      expect(json.rows).toBe(csv.rows);
      expect(md.rows).toBe(csv.rows);
      const text = readFileSync(join(out, `${name}.csv`), 'utf8');
      expect(text.endsWith('\r\n')).toBe(true);
      const [header, ...rows] = parseCsv(text);
      const objects = JSON.parse(readFileSync(join(out, `${name}.json`), 'utf8')) as Record<string, unknown>[];
      expect(rows).toHaveLength(objects.length);
      expect(header).toEqual(Object.keys(objects[0] ?? {}));
      // every CSV cell is the JSON value as text (dates ISO, booleans true/false, null empty), a fraction rounded to
      // the decimals a person reads (JSON keeps them all)
      rows.forEach((row, r) => {
        row.forEach((cell, c) => {
          const column = header?.[c] ?? '';
          const value = objects[r]?.[column];
          if (typeof value === 'number' && !Number.isInteger(value)) {
            const decimals = peopleDecimals(column);
            expect(cell.split('.')[1]?.length ?? 0, `${name}.${column} ${cell}`).toBeLessThanOrEqual(decimals);
            expect(Math.abs(Number(cell) - value)).toBeLessThanOrEqual(0.5 * 10 ** -decimals + 1e-9);
          } else if (typeof value === 'number') expect(Number(cell)).toBe(value);
          else expect(cell).toBe(value === null ? '' : String(value));
        });
      });
      const documented = Object.keys(report.columns);
      for (const column of header ?? []) {
        expect(
          documented.includes(column) || documented.some((d) => d.includes('…') && /_pp$|_prompts$/.test(column)),
          `${name}.${column} documented`,
        ).toBe(true);
      }
      if (!documented.some((d) => d.includes('…')) && name !== 'wow_movers') expect(header).toEqual(documented);
      const markdown = readFileSync(join(out, `${name}.md`), 'utf8');
      expect(markdown.startsWith(`# ${report.title}\n`)).toBe(true);
      expect(markdown.split('\n').filter((l) => l.startsWith('| ')).length).toBe(csv.rows + 2);
    }
  }, 240_000);

  it('weekly visibility pools counts over the range; every rate has its n and sits inside its interval', async () => {
    const [range] = await query<{ lo: string; hi: string }>(
      `select strftime(min(date) + 9, '%Y-%m-%d') as lo, strftime(max(date) - 3, '%Y-%m-%d') as hi from marts.brand_visibility_daily`,
    );
    const file = join(out, 'weekly.json');
    await writeReport({
      db: world.db,
      name: 'weekly_visibility',
      format: 'json',
      out: file,
      from: range?.lo,
      to: range?.hi,
    });
    interface Weekly {
      is_own_brand: boolean;
      provider: string;
      week_start: string;
      responses: number;
      mentions: number;
      visibility_pct: number;
      visibility_ci_low_pct: number;
      visibility_ci_high_pct: number;
    }
    const rows = JSON.parse(readFileSync(file, 'utf8')) as Weekly[];
    const [daily] = await query<{ responses: number; mentions: number }>(
      `select sum(responses)::int as responses, sum(mentions)::int as mentions from marts.brand_visibility_daily
        where is_own_brand and provider = 'all' and date between '${range?.lo}' and '${range?.hi}'`,
    );
    const own = rows.filter((r) => r.is_own_brand && r.provider === 'all');
    expect(own.reduce((s, r) => s + r.responses, 0)).toBe(daily?.responses);
    expect(own.reduce((s, r) => s + r.mentions, 0)).toBe(daily?.mentions);
    for (const r of rows) {
      expect(r.visibility_pct).toBeCloseTo((100 * r.mentions) / r.responses, 1);
      expect(r.visibility_ci_low_pct).toBeLessThanOrEqual(r.visibility_pct);
      expect(r.visibility_ci_high_pct).toBeGreaterThanOrEqual(r.visibility_pct);
      expect(new Date(`${r.week_start}T00:00:00Z`).getUTCDay()).toBe(1);
    }
  });

  it('share of voice: the shares add up to 100, numerators to denominators; each share inside its interval', async () => {
    const file = join(out, 'sov.json');
    await writeReport({ db: world.db, name: 'share_of_voice', format: 'json', out: file });
    interface Sov {
      project_id: string;
      provider: string;
      rank: number;
      brand_responses: number;
      all_mentions_total: number;
      sov_all_pct: number;
      sov_all_ci_low_pct: number;
      sov_all_ci_high_pct: number;
      sov_tracked_pct: number | null;
      sov_tracked_ci_low_pct: number | null;
      sov_tracked_ci_high_pct: number | null;
      is_tracked: boolean;
    }
    const rows = JSON.parse(readFileSync(file, 'utf8')) as Sov[];
    for (const r of rows) {
      // the interval holds the share (to the rounding), within 0..100, and is no point (it has answers behind it)
      expect(r.sov_all_ci_low_pct).toBeLessThanOrEqual(r.sov_all_pct + 0.01);
      expect(r.sov_all_ci_high_pct).toBeGreaterThanOrEqual(r.sov_all_pct - 0.01);
      expect(r.sov_all_ci_low_pct).toBeGreaterThanOrEqual(0);
      expect(r.sov_all_ci_high_pct).toBeLessThanOrEqual(100);
      expect(r.sov_all_ci_high_pct - r.sov_all_ci_low_pct).toBeGreaterThan(0);
      if (r.is_tracked && r.sov_tracked_pct !== null) {
        expect(r.sov_tracked_ci_low_pct ?? 101).toBeLessThanOrEqual(r.sov_tracked_pct + 0.01);
        expect(r.sov_tracked_ci_high_pct ?? -1).toBeGreaterThanOrEqual(r.sov_tracked_pct - 0.01);
      } else expect(r.sov_tracked_ci_low_pct).toBeNull();
    }
    const groups = new Map<string, Sov[]>();
    for (const r of rows) {
      const key = `${r.project_id}/${r.provider}`;
      groups.set(key, [...(groups.get(key) ?? []), r]);
    }
    expect(groups.size).toBeGreaterThanOrEqual(2 * 4);
    for (const group of groups.values()) {
      const total = group[0]?.all_mentions_total;
      expect(group.reduce((s, r) => s + r.brand_responses, 0)).toBe(total);
      expect(Math.abs(group.reduce((s, r) => s + r.sov_all_pct, 0) - 100)).toBeLessThan(0.01 * group.length);
      expect(group.map((r) => r.rank)).toEqual(group.map((_, i) => i + 1));
    }
  });

  it('bad input exits 64 and names the fix; parameters are bound, never spliced; a failed report keeps the old file', async () => {
    const file = join(out, 'bad.csv');
    writeFileSync(file, 'previous\r\n');
    const cases: [Parameters<typeof writeReport>[0], RegExp][] = [
      [{ db: world.db, name: 'nope', format: 'csv', out: file }, /Unknown report "nope".*weekly_visibility/],
      [
        { db: world.db, name: 'weekly_visibility', format: 'csv', out: file, from: '2026-02-30' },
        /--from must be a calendar day/,
      ],
      [
        { db: world.db, name: 'weekly_visibility', format: 'csv', out: file, from: '2026-03-02', to: '2026-03-01' },
        /after --to/,
      ],
      [
        { db: world.db, name: 'weekly_visibility', format: 'csv', out: file, projectId: "x' or '1'='1" },
        /Unknown project "x' or '1'='1"/,
      ],
      // a 10 kB argument is shown cut, with its length, not echoed whole
      [
        { db: world.db, name: 'weekly_visibility', format: 'csv', out: file, projectId: 'p'.repeat(10_000) },
        /^Unknown project "p{80}"… \(10000 characters\): give a project's name or id\. Projects in this warehouse: .{0,600}$/,
      ],
      [{ db: world.db, name: 'source_opportunities', format: 'csv', out: file, from: '2026-01-01' }, /takes no --from/],
      [
        { db: world.db, name: 'weekly_visibility', format: 'xlsx' as 'csv', out: file },
        /--format must be one of csv, json, md/,
      ],
      [{ db: join(out, 'missing.duckdb'), name: 'weekly_visibility', format: 'csv', out: file }, /No warehouse at/],
    ];
    for (const [options, message] of cases) {
      const error = await writeReport(options).catch((e: unknown) => e);
      expect(error, String(message)).toBeInstanceOf(VwhError);
      expect((error as VwhError).exitCode).toBe(64);
      expect((error as VwhError).message).toMatch(message);
    }
    // a report that fails in DuckDB (its SQL no longer matches the marts) leaves the previous file as it was
    const broken = tempDir('vwh-broken-reports-').dir;
    writeFileSync(
      join(broken, 'broken.sql'),
      '/* @report\ntitle: Broken\ndescription: reads a column that is gone\ncolumns: {x: gone}\n*/\nselect no_such_column as x from marts.brand_visibility_daily',
    );
    await expect(
      writeReport({ db: world.db, name: 'broken', format: 'csv', out: file, reportsDir: broken }),
    ).rejects.toThrow(/The report broken failed on this warehouse/);
    expect(readFileSync(file, 'utf8')).toBe('previous\r\n');
    rmSync(broken, { recursive: true, force: true });
    // one project only
    const [project] = await query<{ id: string }>('select min(project_id) as id from marts.brand_visibility_daily');
    await writeReport({ db: world.db, name: 'competitor_gaps', format: 'json', out: file, projectId: project?.id });
    const rows = JSON.parse(readFileSync(file, 'utf8')) as { project_id: string }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => r.project_id))).toEqual(new Set([project?.id]));
  });

  it('CSV is RFC 4180: quotes doubled, fields with separators quoted, CRLF, optional BOM for Excel', async () => {
    const quoting = await adHocCsv(
      'quoting',
      'a: text, b: text, n: always null, d: day, t: instant, d0: a day before year 1000, tz: an instant with a zone',
      "select 'say \"hi\", please' as a, 'line' || chr(10) || 'break' as b, null as n, date '2026-01-02' as d, " +
        "timestamp '2026-01-02 03:04:05' as t, date '0999-01-02' as d0, timestamptz '2026-01-02 03:04:05.5+00' as tz",
    );
    expect(quoting).toBe(
      'a,b,n,d,t,d0,tz\r\n"say ""hi"", please","line\nbreak",,2026-01-02,2026-01-02T03:04:05Z,0999-01-02,2026-01-02T03:04:05Z\r\n',
    );
    const file = join(out, 'bom.csv');
    await writeReport({ db: world.db, name: 'source_opportunities', format: 'csv', out: file, bom: true });
    expect([...readFileSync(file).subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  });

  it('CSV neutralizes text that a spreadsheet would run as a formula (OWASP), not numbers; --raw-csv keeps it', async () => {
    const evil = '=HYPERLINK("http://evil.example","click")';
    const db = await world.copy(
      'formula.duckdb',
      `update marts.competitor_gaps set competitor_name = '${evil.replace(/'/g, "''")}'`,
    );
    const file = join(out, 'gaps-formula.csv');
    await writeReport({ db, name: 'competitor_gaps', format: 'csv', out: file });
    const [header, ...rows] = parseCsv(readFileSync(file, 'utf8'));
    const name = header?.indexOf('competitor_name') ?? -1;
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => r[name]))).toEqual(new Set([`'${evil}`]));
    await writeReport({ db, name: 'competitor_gaps', format: 'csv', out: file, rawCsv: true });
    expect(
      new Set(
        parseCsv(readFileSync(file, 'utf8'))
          .slice(1)
          .map((r) => r[name]),
      ),
    ).toEqual(new Set([evil]));

    // every starting character of the rule, in text; numbers (negative too), days and a text cell that is only safe
    const formulas = await adHocCsv(
      'formulas',
      'a: text, b: text, c: text, d: text, e: text, f: text, g: text, n: a number, x: a decimal, day: a day',
      "select '=1+2' as a, '+1' as b, '-5' as c, '@SUM(A1)' as d, chr(9) || 'tab' as e, chr(13) || 'cr' as f, " +
        "'safe = text' as g, -5 as n, -2.5::decimal(4,1) as x, date '2026-01-02' as day",
    );
    expect(parseCsv(formulas)[1]).toEqual([
      "'=1+2",
      "'+1",
      "'-5",
      "'@SUM(A1)",
      "'\ttab",
      "'\rcr",
      'safe = text',
      '-5',
      '-2.5',
      '2026-01-02',
    ]);
  });

  it('arrow: a real mart read back with apache-arrow has its rows, columns and values', async () => {
    const dir = join(out, 'arrow');
    const summary = await exportArrow({ db: world.db, outDir: dir, tables: ['brand_visibility_daily'] });
    const table = tableFromIPC(readFileSync(join(dir, 'marts.brand_visibility_daily.arrow')));
    const [count] = await query<{ n: number }>('select count(*)::int as n from marts.brand_visibility_daily');
    expect(table.numRows).toBe(count?.n);
    expect(summary.rows).toBe(count?.n);
    const [first] = await query<Record<string, unknown>>(
      `select brand_name, provider, strftime(date, '%Y-%m-%d') as date, responses, mentions, visibility_pct
         from marts.brand_visibility_daily limit 1 offset 0`,
    );
    const row = table.get(0)?.toJSON() as Record<string, unknown>;
    expect({
      brand_name: row.brand_name,
      provider: row.provider,
      date: new Date(row.date as number).toISOString().slice(0, 10),
      responses: Number(row.responses),
      mentions: Number(row.mentions),
      visibility_pct: row.visibility_pct,
    }).toEqual(first);
  });
});

describe('html report', () => {
  it('is one self-contained file, the same bytes for the same input, with ten charts per project', async () => {
    const first = join(out, 'report.html');
    const summary = await writeHtmlReport({ db: world.db, out: first });
    const html = readFileSync(first, 'utf8');
    expect(summary).toMatchObject({ kind: 'html', files: 1, bytes: Buffer.byteLength(html) });
    expect(html).not.toMatch(/https?:/i);
    // nothing that loads: no script, stylesheet, image or frame; url() only to fragments of the page (SVG clip paths)
    expect(html).not.toMatch(/<script|<link|<img|<iframe|\bsrc=|url\((?!#)/i);
    // ten charts per project, less those the page names as without data in the range
    const empty = [...html.matchAll(/No data in this range for: ([^.]*)\./g)].flatMap((m) => (m[1] ?? '').split(', '));
    const figures = html.match(/<figure class="chart"/g) ?? [];
    expect(figures.length + empty.length).toBe(2 * 10);
    expect(figures.length).toBeGreaterThanOrEqual(2 * 5);
    expect(html.match(/<svg /g)).toHaveLength(figures.length);
    expect(html.match(/<figcaption[^>]*>[^<]*n = [\d,]+/g)).toHaveLength(figures.length);
    // the date line names the first and last days of the data (not a placeholder)
    const [span] = await query<{ first: string; last: string }>(
      `select strftime(min(date), '%Y-%m-%d') as first, strftime(max(date), '%Y-%m-%d') as last
         from marts.brand_visibility_daily`,
    );
    expect(html).toContain(`2 projects, ${span?.first} to ${span?.last}. Data through ${span?.last}`);
    // competitor gaps: each competitor's n is at most the project's answers in the window (an answer naming two
    // competitors counts once for each: their n are not summed)
    const gapWindows = await query<{ answers: bigint }>(
      `select sum(d.responses)::bigint as answers
         from marts.brand_visibility_daily d
         join (select distinct project_id, window_from, window_to from marts.competitor_gaps) w
           on w.project_id = d.project_id and d.date between w.window_from and w.window_to
        where d.is_own_brand and d.provider = 'all' group by d.project_id`,
    );
    const gapCaptions = [...html.matchAll(/n = ([\d,]+)(?: to ([\d,]+))? answers per competitor/g)];
    expect(gapCaptions.length).toBeGreaterThan(0);
    const most = Math.max(...gapWindows.map((w) => Number(w.answers)));
    for (const [, lo, hi] of gapCaptions)
      expect(Number((hi ?? lo ?? '').replaceAll(',', ''))).toBeLessThanOrEqual(most);
    // the source window may be the API's, ending after the warehouse's newest day: the caption says so when it does
    const sourceWindows = await query<{ project_id: string; window_to: string; through: string }>(
      `select s.project_id, strftime(max(s.window_to), '%Y-%m-%d') as window_to,
              (select strftime(max(date), '%Y-%m-%d') from marts.brand_visibility_daily d where d.project_id = s.project_id) as through
         from marts.source_opportunities s group by s.project_id`,
    );
    const notes = [...html.matchAll(/the warehouse holds its answers through (\d{4}-\d{2}-\d{2})\)/g)].map((m) => m[1]);
    expect(notes.sort()).toEqual(
      sourceWindows
        .filter((w) => w.window_to > w.through)
        .map((w) => w.through)
        .sort(),
    );
    // a warehouse a day behind the API's window (the nightly build stops at yesterday): the caption says so
    const behind = await world.copy(
      'behind.duckdb',
      `delete from marts.brand_visibility_daily
        where project_id = (select min(project_id) from marts.source_opportunities)
          and date >= (select max(window_to) from marts.source_opportunities
                        where project_id = (select min(project_id) from marts.source_opportunities))`,
    );
    const behindPage = join(out, 'behind.html');
    await writeHtmlReport({ db: behind, out: behindPage });
    expect(readFileSync(behindPage, 'utf8')).toMatch(
      /window \d{4}-\d{2}-\d{2} to (\d{4}-\d{2}-\d{2}) \(the API&#39;s analysis window; the warehouse holds its answers through \d{4}-\d{2}-\d{2}\)/,
    );
    // same input, same bytes: another render, from another copy of the warehouse
    const copy = await world.copy('html-copy.duckdb');
    const second = join(out, 'report-2.html');
    await writeHtmlReport({ db: copy, out: second });
    expect(readFileSync(second, 'utf8')).toBe(html);
    // one project, a range
    const [project] = await query<{ id: string }>('select min(project_id) as id from marts.brand_visibility_daily');
    const one = join(out, 'one.html');
    await writeHtmlReport({ db: world.db, out: one, projectId: project?.id, from: '2000-01-01' });
    expect(readFileSync(one, 'utf8').match(/<section class="project"/g)).toHaveLength(1);
    await expect(writeHtmlReport({ db: world.db, out: one, projectId: 'nope' })).rejects.toMatchObject({
      exitCode: 64,
    });
  }, 240_000);

  it('on days built before share of voice had intervals, says so instead of inventing one (report and chart)', async () => {
    // A warehouse upgraded from a version without the interval sums keeps nulls on its older days.
    const copy = await world.copy('pre-intervals.duckdb');
    const db = await Database.open(copy);
    let split = '';
    let first = '';
    try {
      first = String(await db.session.scalar('select cast(min(date) as varchar) from marts.share_of_voice_daily'));
      split = String(await db.session.scalar('select cast(min(date) + 20 as varchar) from marts.share_of_voice_daily'));
      await db.session.run(
        `update marts.share_of_voice_daily set brand_co_mentions = null, tracked_co_mentions = null,
           mentions_sq_total = null, tracked_mentions_sq_total = null where date < date '${split}'`,
      );
    } finally {
      db.close();
    }
    type Row = { sov_all_pct: number; sov_all_ci_low_pct: number | null; sov_tracked_ci_high_pct: number | null };
    const read = async (from?: string) => {
      const file = join(out, `pre-${from ?? 'all'}.json`);
      await writeReport({ db: copy, name: 'share_of_voice', format: 'json', out: file, ...(from ? { from } : {}) });
      return JSON.parse(readFileSync(file, 'utf8')) as Row[];
    };
    const whole = await read(first);
    expect(whole.length).toBeGreaterThan(0);
    expect(whole.filter((r) => r.sov_all_ci_low_pct !== null || r.sov_tracked_ci_high_pct !== null)).toEqual([]);
    const recent = await read(split);
    expect(recent.every((r) => r.sov_all_ci_low_pct !== null)).toBe(true);
    const page = join(out, 'pre-intervals.html');
    await writeHtmlReport({ db: copy, out: page, from: first });
    const html = readFileSync(page, 'utf8');
    expect(html).toContain('no intervals: the range holds days built before the warehouse kept them');
    expect(html).not.toContain('top 10, with 95% intervals (the answer as the unit');
  }, 120_000);

  it('gives two bars whose texts share their first 33 characters two labels', () => {
    const long = 'best electric cargo bike for a family of';
    const labels = uniqueLabels([`${long} four`, `${long} five`, 'short']);
    expect(new Set(labels).size).toBe(3);
    for (const l of labels) expect(l.length).toBeLessThanOrEqual(34);
    expect(labels[2]).toBe('short');
  });

  it('says what the marts say: every caption checked against them in Chromium', async () => {
    const file = join(out, 'captions.html');
    await writeHtmlReport({ db: world.db, out: file });
    type Section = { heading: string; figures: HtmlFigure[] };
    const { sections } = await readHtmlSections(file);
    const db = await Database.open(world.db, { access_mode: 'READ_ONLY' });
    const q = <T extends Record<string, unknown>>(sql: string) => db.session.all<T>(sql);
    try {
      const projects = await q<{ id: string; name: string; brand_name: string }>(
        'select id, arg_max(name, _extracted_at) as name, arg_max(brand_name, _extracted_at) as brand_name from raw.projects group by id order by name, id',
      );
      expect(sections.length).toBe(projects.length);
      for (const [i, project] of projects.entries()) {
        const section = sections[i] as Section;
        const id = project.id;
        const caption = (chart: string) => section.figures.find((f) => f.chart === chart)?.caption ?? '';
        // the heading names the brand only when it differs from the project's name ("Northwind Cycles (Northwind Cycles)")
        expect(section.heading).not.toBe(`${project.name} (${project.name})`);
        if (project.brand_name === project.name) expect(section.heading.trim()).toBe(project.name);
        // providers: the own brand and the competitors named in the largest share of answers, over their tracked days
        const top = await q<{ brand_name: string }>(`
          select any_value(brand_name order by date desc) as brand_name from marts.brand_visibility_daily
          where project_id = '${id}' and provider = 'all' and not is_own_brand group by brand_id
          order by sum(mentions) / sum(responses) desc, brand_id limit 3`);
        const providers = section.figures.find((f) => f.chart === 'providers');
        for (const t of top) expect(providers?.labels, t.brand_name).toContain(t.brand_name);
        expect(caption('providers')).toContain(`the ${top.length} competitors named in the largest share of answers`);
        // share of voice: the report's default 7 days ending on the last complete day
        const [sov] = await q<{ date_from: string; date_to: string }>(`
          select strftime(max(date) filter (where is_complete) - 6, '%Y-%m-%d') as date_from,
                 strftime(max(date) filter (where is_complete), '%Y-%m-%d') as date_to
          from marts.share_of_voice_daily where project_id = '${id}'`);
        expect(caption('sov')).toContain(`${sov?.date_from} to ${sov?.date_to}`);
        // prompt opportunities: in searches per month, listed prompts only, n of the shown rows
        const prompts = await q<{ n: number; window_to: string }>(`
          select sum(responses)::int as n, strftime(any_value(window_to), '%Y-%m-%d') as window_to from (
            select responses, window_to from marts.prompt_opportunities
            where project_id = '${id}' and provider = 'all' and is_listed and list = 'win' order by score_rank limit 10)`);
        if (prompts[0]?.n) {
          expect(caption('prompts')).toContain('in searches per month');
          // the caption's claim holds for every bar: the competitor leads beyond noise (issue 54: it did not for #2)
          expect(caption('prompts')).toContain('more often than');
          const leads = section.figures.find((f) => f.chart === 'prompts')?.cells ?? [];
          for (const row of leads) expect(Number(row[9]?.split(' to ')[0])).toBeGreaterThanOrEqual(0);
          expect(caption('prompts')).toContain(`active on ${prompts[0].window_to} with at least 30 answers`);
          expect(caption('prompts')).toContain(`n = ${prompts[0].n.toLocaleString('en-US')} answers`);
          const bars = section.figures.find((f) => f.chart === 'prompts')?.labels.filter((l) => l.length > 20) ?? [];
          expect(new Set(bars).size).toBe(bars.length);
        }
        // source opportunities: how many are opportunities by the gap, and the 0–100 score named
        const [sources] = await q<{ gaps: number }>(`
          select (count(*) filter (where is_opportunity))::int as gaps from (
            select is_opportunity from marts.source_opportunities
            where project_id = '${id}' and not is_own_domain and not is_competitor_domain
            order by score_rank limit 10)`);
        expect(caption('sources')).toContain(`the ${sources?.gaps} whose citing answers leave the brand out`);
        expect(caption('sources')).toContain('opportunity score (0–100');
        // action impact: the before and after windows as the mart has them, effects with one decimal
        const [windows] = await q<{ before: string; after: string; ramp: string }>(`
          select min(before_to - before_from + 1) || coalesce('–' || nullif(max(before_to - before_from + 1), min(before_to - before_from + 1)), '') as before,
                 min(after_to - after_from + 1) || coalesce('–' || nullif(max(after_to - after_from + 1), min(after_to - after_from + 1)), '') as after,
                 min(after_from - cast(completed_at as date)) || '' as ramp
          from marts.action_impact where project_id = '${id}' and status = 'measured'`);
        // effects (effect pp and its interval, columns 7–9 of the action table) with at most one decimal
        const effects = (section.figures.find((f) => f.chart === 'actions')?.cells ?? []).flatMap((r) => r.slice(6, 9));
        for (const e of effects) expect(e).toMatch(/^(|–|-?\d+(\.\d)?)$/);
        if (windows?.after) {
          expect(caption('actions')).toContain(
            `the ${windows.before} days before completion against the ${windows.after} days after a ${windows.ramp}-day ramp`,
          );
        }
      }
    } finally {
      db.close();
    }
  }, 120_000);

  it('action verdicts: the headline of each action says what marts.action_verdicts says, read in Chromium', async () => {
    const file = join(out, 'verdicts.html');
    await writeHtmlReport({ db: world.db, out: file });
    const profile = tempDir('vwh-chromium-').dir;
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    let read: { notes: { id: string; text: string }[]; rows: string[][]; marks: number }[] = [];
    try {
      const page = await browser.newPage();
      await page.goto(`file://${file}`);
      read = await page.$$eval('figure.chart[data-chart="verdicts"]', (figures) =>
        figures.map((f) => ({
          notes: [...f.querySelectorAll('ul.notes li')].map((li) => ({
            id: li.getAttribute('data-id') ?? '',
            text: li.textContent ?? '',
          })),
          rows: [...f.querySelectorAll('table tbody tr')].map((tr) =>
            [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''),
          ),
          marks: f.querySelectorAll('svg path, svg rect, svg line').length,
        })),
      );
    } finally {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    }
    const verdicts = await query<{
      action_id: string;
      title: string;
      vs_expected: string | null;
      p_positive: number;
      p_within_expected: number | null;
      days_to_decide: bigint | null;
      effect_pp: number;
    }>('select * from marts.action_verdicts');
    const categories = await query<{ team_id: string }>('select team_id from marts.action_impact_by_category');
    expect(verdicts.length).toBeGreaterThan(0);
    const notes = read.flatMap((f) => f.notes);
    // every measured action has its headline, once, and nothing else does
    expect(notes.map((n) => n.id).sort()).toEqual(verdicts.map((v) => v.action_id).sort());
    const tenths = (p: number) => `${Math.min(9, Math.max(1, Math.round(10 * p)))} in 10`;
    const words: Record<string, string> = {
      within: 'did what was promised',
      above: 'did more than was promised',
      below: 'fell short of what was promised',
    };
    for (const v of verdicts) {
      const text = notes.find((n) => n.id === v.action_id)?.text ?? '';
      // names before ids: the sentence starts with the action's title
      expect(text.startsWith(`${v.title}: `), text).toBe(true);
      // a conclusive verdict is said in words; an inconclusive one never sounds like a verdict
      for (const [verdict, phrase] of Object.entries(words))
        expect(text.includes(phrase), `${text} (mart: ${v.vs_expected})`).toBe(v.vs_expected === verdict);
      expect(text).toContain(`likely helped: ${tenths(v.p_positive)}`);
      if (v.p_within_expected !== null)
        expect(text).toContain(`within what was promised: ${tenths(v.p_within_expected)}`);
      if (v.vs_expected === 'inconclusive') {
        expect(text).toContain(
          v.days_to_decide === null
            ? 'no clear answer expected within a year'
            : `a clearer answer in about ${v.days_to_decide} day`,
        );
      }
      expect(text).toContain(`effect ${v.effect_pp.toFixed(1)} pp`);
    }
    // the forest's rows: every action, then its team's categories and the portfolio ('all'), each drawn
    const rows = read.flatMap((f) => f.rows);
    const perProject = read.length;
    expect(rows.length).toBe(
      verdicts.length + perProject * (categories.length / new Set(categories.map((c) => c.team_id)).size),
    );
    expect(rows.some((r) => r[0] === 'All actions (portfolio)')).toBe(true);
    for (const f of read) expect(f.marks).toBeGreaterThan(3 * f.rows.length);
  }, 120_000);

  it('opens in headless Chromium with no console error and marks in every chart; a screenshot is written', async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`No Chromium at ${CHROMIUM}: bash test/setup/system-deps.sh installs it, or set VWH_CHROMIUM.`);
    }
    const file = join(out, 'browser.html');
    await writeHtmlReport({ db: world.db, out: file });
    const profile = tempDir('vwh-chromium-').dir;
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      viewport: { width: 900, height: 1400 },
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(String(e)));
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      await page.goto(`file://${file}`);
      const marks = await page.$$eval('figure.chart', (figures) =>
        figures.map((f) => ({
          chart: f.getAttribute('data-chart'),
          marks: f.querySelectorAll('svg path, svg rect, svg line, svg circle').length,
          width: f.querySelector('svg')?.getBoundingClientRect().width ?? 0,
          rows: f.querySelectorAll('table tbody tr').length,
        })),
      );
      expect(errors).toEqual([]);
      expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
      expect(marks.length).toBe(readFileSync(file, 'utf8').match(/<figure class="chart"/g)?.length);
      expect(marks.length).toBeGreaterThanOrEqual(2 * 5);
      for (const m of marks) {
        expect(m.marks, m.chart).toBeGreaterThan(5);
        expect(m.width, m.chart).toBeGreaterThan(300);
        expect(m.rows, m.chart).toBeGreaterThan(0);
      }
      // outside the repository, for a person to look at
      const shot = join(tmpdir(), 'vwh-html-report.png');
      await page.screenshot({ path: shot, fullPage: true });
      expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
    } finally {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    }
  }, 120_000);
});
