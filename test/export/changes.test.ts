/**
 * What changed: `vwh report changes` (since yesterday, this week against last, this month against last, per brand and
 * provider, with n, interval, significance, MDE and share of voice) against the marts it reads, and the HTML report's
 * two sections on it (this week's alerts, what changed) read in Chromium. A world long enough for month-over-month
 * changes (70 days), of another seed and size than the export tests' own.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeHtmlReport } from '../../src/export/index.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { vwh } from '../cli/support.js';
import { tempDir } from '../fixtures.js';
import { buildExportWorld, type ExportWorld, type HtmlFigure, readHtmlSections } from './support.js';

let world: ExportWorld;
let out: string;
beforeAll(async () => {
  world = await buildExportWorld({ seed: 31, projects: 2, prompts: 4, historyDays: 70, today: '2026-10-01' });
  out = tempDir('vwh-changes-').dir;
}, 300_000);
afterAll(() => {
  world?.cleanup();
  if (out) rmSync(out, { recursive: true, force: true });
});

type Row = Record<string, string | number | boolean | null>;

async function query<T extends Record<string, unknown>>(sql: string): Promise<T[]> {
  const db = await Database.open(world.db, { access_mode: 'READ_ONLY' });
  try {
    return await db.session.all<T>(sql);
  } finally {
    db.close();
  }
}

/** The changes report's rows, written by the built CLI as JSON. */
async function changes(): Promise<Row[]> {
  const file = join(out, 'changes.json');
  const ran = await vwh(['report', 'changes', '--db', world.db, '--format', 'json', '--out', file]);
  expect(ran.code, ran.stderr).toBe(0);
  return JSON.parse(readFileSync(file, 'utf8')) as Row[];
}

/** The report's figure against the mart's 2-decimal one (the day's, computed from counts, within 0.05 of it). */
const near = (report: unknown, mart: unknown) => {
  if (mart === null || report === null) return expect(report).toBe(mart);
  expect(Math.abs(Number(report) - Number(mart))).toBeLessThanOrEqual(0.05 + 1e-9);
};

describe('vwh report changes', () => {
  it('has the day, the week and the month per brand and provider, with the marts’ n, change, interval, decision and MDE', async () => {
    const rows = await changes();
    const columns = Object.keys(rows[0] ?? {});
    // names before ids, as every report: the project's name, then its id (test/analytics/units.test.ts); the brand's
    // id last. JSON keeps every decimal; CSV and Markdown round (units.test.ts too).
    expect(columns.slice(0, 2)).toEqual(['project_name', 'project_id']);
    expect(columns.at(-1)).toBe('brand_id');
    const projects = new Set(rows.map((r) => r.project_id));
    expect(projects.size).toBe(2);
    for (const project of projects) {
      for (const period of ['day', 'week', 'month']) {
        const mine = rows.filter((r) => r.project_id === project && r.period === period);
        expect(mine.length, `${project} ${period}`).toBeGreaterThan(4);
        // rank order: 1..n, significant first, then by size of the change
        expect(mine.map((r) => r.rank)).toEqual(mine.map((_, i) => i + 1));
        const firstQuiet = mine.findIndex((r) => r.significant !== true);
        if (firstQuiet >= 0) expect(mine.slice(firstQuiet).every((r) => r.significant !== true)).toBe(true);
        expect(new Set(mine.map((r) => r.provider))).toContain('all');
      }
    }
    // week and month: the trend mart's own figures on the last day
    const trend = await query<Record<string, unknown>>(`
      select project_id, brand_id, provider, cast(date as varchar) as date, wow_panel_responses, wow_delta_pp,
        wow_ci_low_pp, wow_ci_high_pp, wow_significant, wow_mde_pp, mom_panel_responses, mom_delta_pp, mom_ci_low_pp,
        mom_ci_high_pp, mom_significant, mom_mde_pp
      from marts.brand_visibility_trend
      semi join (select project_id, max(date) as date from marts.brand_visibility_trend group by project_id)
        using (project_id, date)`);
    let compared = 0;
    for (const r of rows.filter((x) => x.period !== 'day')) {
      const t = trend.find(
        (x) => x.project_id === r.project_id && x.brand_id === r.brand_id && x.provider === r.provider,
      );
      expect(t, `${r.brand_name} ${r.provider}`).toBeDefined();
      if (!t) continue;
      const k = r.period === 'week' ? 'wow' : 'mom';
      expect(String(r.date_to)).toBe(t.date);
      expect(r.responses).toBe(Number(t[`${k}_panel_responses`]));
      near(r.change_pp, t[`${k}_delta_pp`]);
      near(r.change_ci_low_pp, t[`${k}_ci_low_pp`]);
      near(r.change_ci_high_pp, t[`${k}_ci_high_pp`]);
      expect(r.significant).toBe(t[`${k}_significant`]);
      near(r.mde_pp, t[`${k}_mde_pp`]);
      compared++;
    }
    expect(compared).toBeGreaterThan(20);
    // the day: the daily mart's counts of the last day and the one before; a change inside its interval, and an MDE
    // wherever it was tested, larger than the margin
    const daily = await query<{
      project_id: string;
      brand_id: string;
      provider: string;
      date: string;
      responses: number;
      mentions: number;
    }>(
      `select project_id, brand_id, provider, cast(date as varchar) as date, responses::int as responses,
         mentions::int as mentions from marts.brand_visibility_daily`,
    );
    const day = rows.filter((r) => r.period === 'day');
    for (const r of day) {
      const today = daily.find(
        (d) =>
          d.project_id === r.project_id &&
          d.brand_id === r.brand_id &&
          d.provider === r.provider &&
          d.date === r.date_to,
      );
      const before = daily.find(
        (d) =>
          d.project_id === r.project_id &&
          d.brand_id === r.brand_id &&
          d.provider === r.provider &&
          d.date === r.prev_to,
      );
      expect(r.responses).toBe(today?.responses);
      expect(r.responses_prev).toBe(before?.responses);
      const change =
        100 * ((today?.mentions ?? 0) / (today?.responses ?? 1) - (before?.mentions ?? 0) / (before?.responses ?? 1));
      near(r.change_pp, change);
    }
    for (const r of rows) {
      expect(Number(r.change_ci_low_pp)).toBeLessThanOrEqual(Number(r.change_pp));
      expect(Number(r.change_pp)).toBeLessThanOrEqual(Number(r.change_ci_high_pp));
      if (r.p_value !== null) expect(Number(r.mde_pp)).toBeGreaterThan(r.period === 'month' ? 0.5 : 1);
      if (r.significant === true) expect(Math.abs(Number(r.change_pp))).toBeGreaterThan(0);
      if (r.sov_pct !== null && r.sov_prev_pct !== null) {
        expect(Math.abs(Number(r.sov_change_pp) - (Number(r.sov_pct) - Number(r.sov_prev_pct)))).toBeLessThanOrEqual(
          0.10001,
        );
      }
    }
    // a day rests on a handful of answers: its MDE is far above the month's (the same brand and provider)
    const mdeOf = (period: string) =>
      rows.filter((r) => r.period === period && r.provider === 'all' && r.mde_pp !== null).map((r) => Number(r.mde_pp));
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;
    expect(median(mdeOf('day'))).toBeGreaterThan(median(mdeOf('week')));
    expect(median(mdeOf('week'))).toBeGreaterThan(median(mdeOf('month')));
    // share of voice over the week: the tracked brands of a project and provider add up to 100
    const week = rows.filter((r) => r.period === 'week' && r.provider === 'all' && r.sov_pct !== null);
    for (const project of projects) {
      const sum = week.filter((r) => r.project_id === project).reduce((s, r) => s + Number(r.sov_pct), 0);
      expect(Math.abs(sum - 100)).toBeLessThan(1);
    }
  }, 120_000);
});

describe('the HTML report’s alerts and what changed', () => {
  it('shows, in Chromium, the moves, intervals and MDEs of the changes report and its significant moves first', async () => {
    const rows = await changes();
    const file = join(out, 'changes.html');
    await writeHtmlReport({ db: world.db, out: file });
    const { sections, errors } = await readHtmlSections(file);
    expect(errors).toEqual([]);
    const names = await query<{ id: string; name: string }>(
      'select id, arg_max(name, _extracted_at) as name from raw.projects group by id order by name, id',
    );
    expect(sections).toHaveLength(names.length);
    // as a person reads them in the HTML: one decimal (issue 54)
    const text = (v: unknown) =>
      v === null ? '–' : typeof v === 'number' ? v.toLocaleString('en-US', { maximumFractionDigits: 1 }) : String(v);
    for (const [i, project] of names.entries()) {
      const figures = sections[i]?.figures ?? [];
      const mine = rows.filter((r) => r.project_id === project.id);
      // this week's alerts: the significant moves, largest first (or, with none, the largest moves), each with its
      // interval and MDE as the report has them
      const alerts = figures.find((f) => f.chart === 'alerts');
      expect(alerts, project.name).toBeDefined();
      const significant = mine.filter((r) => r.significant === true);
      const pool = significant.length > 0 ? significant : mine;
      const expected = [...pool]
        .sort(
          (a, b) =>
            Math.abs(Number(b.change_pp)) - Math.abs(Number(a.change_pp)) ||
            String(a.brand_name).localeCompare(String(b.brand_name)),
        )
        .slice(0, 10);
      expect(alerts?.cells.length).toBe(expected.length);
      expect(alerts?.marks ?? 0).toBeGreaterThan(expected.length);
      const col = (f: HtmlFigure | undefined, name: string) => f?.head.indexOf(name) ?? -1;
      expected.forEach((r, k) => {
        const cells = alerts?.cells[k] ?? [];
        expect(cells[col(alerts, 'brand')]).toBe(String(r.brand_name));
        expect(cells[col(alerts, 'change (pp)')]).toBe(text(r.change_pp));
        expect(cells[col(alerts, '95% interval')]).toBe(`${text(r.change_ci_low_pp)} to ${text(r.change_ci_high_pp)}`);
        expect(cells[col(alerts, 'MDE (pp)')]).toBe(text(r.mde_pp));
        expect(cells[col(alerts, 'significant')]).toBe(r.significant === true ? 'yes' : 'no');
      });
      if (significant.length > 0) {
        expect(alerts?.caption).toContain(`of the ${significant.length} significant changes`);
      } else {
        expect(alerts?.caption).toContain('No significant change');
      }
      // what changed: every change on all providers, the day, week and month, with share of voice
      const changed = figures.find((f) => f.chart === 'changes');
      const all = mine.filter((r) => r.provider === 'all');
      expect(changed?.cells.length).toBe(all.length);
      all.forEach((r, k) => {
        const cells = changed?.cells[k] ?? [];
        expect(cells[col(changed, 'brand')]).toBe(String(r.brand_name));
        expect(cells[col(changed, 'change (pp)')]).toBe(text(r.change_pp));
        expect(cells[col(changed, 'answers (n)')]).toBe(text(r.responses));
        expect(cells[col(changed, 'share change (pp)')]).toBe(text(r.sov_change_pp));
      });
      expect(changed?.caption).toContain(
        `${all.filter((r) => r.significant === true).length} of ${all.length} changes are significant`,
      );
    }
  }, 120_000);
});
