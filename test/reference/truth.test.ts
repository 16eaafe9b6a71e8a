/**
 * The ground truth of the control plane (`/_reference/truth/…`) on a small demo world of a seed that is not the
 * demo's: it is computed from the model, so the served answers must scatter around it like binomial draws, and the
 * actions' effects and measurement events must follow the configuration.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/core/days.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { TODAY } from '../fixtures.js';
import { call, type Json, start } from './support.js';

let server: ReferenceServer;
let projects: Json[];

beforeAll(async () => {
  server = await start({ seed: 23, projects: 2, prompts: 8, historyDays: 60 });
  projects = (await call(server, 'GET', '/projects')).body.data;
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('GET /_reference/truth/visibility', () => {
  it('is what the served trend scatters around: per brand, observed − expected stays within 4 standard errors', async () => {
    const to = addDays(TODAY, -2);
    for (const project of projects) {
      const truth = await call(server, 'GET', `/_reference/truth/visibility?project_id=${project.id}&date_to=${to}`);
      expect(truth.status).toBe(200);
      const trend = (
        await call(server, 'GET', `/projects/${project.id}/visibility?date_from=${truth.body.date_from}&date_to=${to}`)
      ).body.data;
      const perBrand = new Map<string, { diff: number; variance: number; days: number }>();
      for (const row of truth.body.rows as Json[]) {
        expect(row.visibility_pct).toBeGreaterThanOrEqual(0);
        expect(row.visibility_pct).toBeLessThanOrEqual(100);
        if (row.provider === 'all') continue;
        const series = trend.series.find((s: Json) => s.competitor_id === row.brand_id);
        const at = trend.dates.indexOf(row.date);
        const observed = series?.visibility[at];
        if (observed === null || observed === undefined) continue;
        const p = row.visibility_pct / 100;
        // The trend's day value is the mean of the three providers' rates: each provider contributes a third.
        const acc = perBrand.get(row.brand_id) ?? { diff: 0, variance: 0, days: 0 };
        acc.diff += (observed - row.visibility_pct) / 3;
        acc.variance += (p * (1 - p) * 10_000) / row.answers / 9;
        acc.days++;
        perBrand.set(row.brand_id, acc);
      }
      expect(perBrand.size).toBeGreaterThan(2);
      for (const [brand, acc] of perBrand) {
        expect(acc.days, brand).toBeGreaterThan(20);
        expect(Math.abs(acc.diff) / Math.sqrt(acc.variance), brand).toBeLessThan(4);
      }
    }
  });

  it('averages the providers into `all` and says what to fix on bad input', async () => {
    const id = projects[0].id;
    const { rows } = (
      await call(server, 'GET', `/_reference/truth/visibility?project_id=${id}&date_from=${addDays(TODAY, -5)}`)
    ).body;
    const cell = (r: Json) => `${r.date}|${r.brand_id}`;
    const all = rows.filter((r: Json) => r.provider === 'all');
    expect(all.length).toBeGreaterThan(0);
    for (const a of all) {
      const parts = rows.filter((r: Json) => r.provider !== 'all' && cell(r) === cell(a));
      expect(parts).toHaveLength(3);
      const mean = parts.reduce((s: number, r: Json) => s + r.visibility_pct, 0) / 3;
      expect(a.visibility_pct).toBeCloseTo(mean, 3);
    }
    expect((await call(server, 'GET', '/_reference/truth/visibility')).status).toBe(400);
    expect((await call(server, 'GET', '/_reference/truth/visibility?project_id=nope')).status).toBe(404);
    const bad = await call(server, 'GET', `/_reference/truth/visibility?project_id=${id}&date_from=2026-02-30`);
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('date_from');
  });

  it('by=prompt: one row per active prompt, whose answer-weighted mean is the project row', async () => {
    const id = projects[0].id;
    const range = `project_id=${id}&date_from=${addDays(TODAY, -3)}&date_to=${addDays(TODAY, -2)}`;
    const pooled = (await call(server, 'GET', `/_reference/truth/visibility?${range}`)).body.rows as Json[];
    const perPrompt = (await call(server, 'GET', `/_reference/truth/visibility?${range}&by=prompt`)).body
      .rows as Json[];
    expect(pooled.every((r) => r.prompt_id === undefined)).toBe(true);
    const key = (r: Json) => `${r.date}|${r.brand_id}|${r.provider}`;
    for (const row of pooled) {
      const parts = perPrompt.filter((r) => key(r) === key(row));
      expect(new Set(parts.map((r) => r.prompt_id)).size).toBe(parts.length);
      expect(parts.reduce((s, r) => s + r.answers, 0)).toBe(row.answers);
      const mean = parts.reduce((s, r) => s + r.answers * r.visibility_pct, 0) / row.answers;
      expect(mean).toBeCloseTo(row.visibility_pct, 2);
    }
    // The own brand's visibility differs between prompts (each prompt has an offset of its own).
    const own = perPrompt.filter((r) => r.is_own_brand && r.provider === 'all' && r.date === perPrompt[0]?.date);
    expect(
      Math.max(...own.map((r) => r.visibility_pct)) - Math.min(...own.map((r) => r.visibility_pct)),
    ).toBeGreaterThan(1);
    const bad = await call(server, 'GET', `/_reference/truth/visibility?${range}&by=brand`);
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('by');
  });
});

describe('ownShifts (planted own-brand changes, an extension for estimator tests)', () => {
  it('moves the own brand of every project by each shift, up then down, and the truth has it; off by default', async () => {
    expect(projects.every((p) => server.state.projects.get(p.id)?.config.own_shifts === undefined)).toBe(true);
    const shifted = await start({ seed: 23, projects: 2, prompts: 8, historyDays: 60, ownShifts: 2 });
    try {
      for (const project of projects) {
        const shifts = shifted.state.projects.get(project.id)?.config.own_shifts ?? [];
        expect(shifts.map((s) => Math.sign(s.impact_pp))).toEqual([1, -1]);
        for (const s of shifts) expect(Math.abs(s.impact_pp)).toBeGreaterThanOrEqual(6);
        const [up] = shifts;
        const own = async (srv: ReferenceServer, day: string) => {
          const { rows } = (
            await call(
              srv,
              'GET',
              `/_reference/truth/visibility?project_id=${project.id}&date_from=${day}&date_to=${day}`,
            )
          ).body;
          return rows.find((r: Json) => r.is_own_brand && r.provider === 'all').visibility_pct as number;
        };
        const day = (at: string, plus: number) => addDays(at.slice(0, 10), plus);
        // The day before the first shift: the same world; 14 days after it (the ramp done, the second not begun):
        // the own brand higher by about the shift (less what detection misses and what clamps).
        expect(await own(shifted, day(up?.at ?? '', -1))).toBeCloseTo(await own(server, day(up?.at ?? '', -1)), 4);
        const lift = (await own(shifted, day(up?.at ?? '', 15))) - (await own(server, day(up?.at ?? '', 15)));
        expect(lift).toBeGreaterThan(0.5 * (up?.impact_pp ?? 0));
        expect(lift).toBeLessThanOrEqual((up?.impact_pp ?? 0) + 0.01);
      }
    } finally {
      await shifted.close();
    }
  });
});

describe('GET /_reference/truth/actions', () => {
  it('gives each completed action an effect below its full boost, over targeted prompts of the project', async () => {
    const { actions, last_complete_day } = (await call(server, 'GET', '/_reference/truth/actions')).body;
    // Late answers of D appear at D+1 06:00 UTC: the last complete day is the day before the clock's, 6 h earlier.
    const { now } = (await call(server, 'GET', '/_reference/clock')).body;
    expect(last_complete_day).toBe(addDays(new Date(Date.parse(now) - 6 * 3_600_000).toISOString().slice(0, 10), -1));
    const measured = actions.filter((a: Json) => a.effect_pp !== null);
    expect(measured.length).toBeGreaterThanOrEqual(4);
    for (const a of measured) {
      const project = projects.find((p) => p.id === a.project_id);
      expect(project).toBeDefined();
      const prompts = (await call(server, 'GET', `/projects/${a.project_id}/prompts`)).body.data.prompts;
      const ids = new Set(prompts.map((p: Json) => p.id));
      expect(a.targeted_prompt_ids.length).toBeGreaterThan(0);
      for (const id of a.targeted_prompt_ids) expect(ids.has(id)).toBe(true);
      // Detection misses some spellings and strengths are clamped at 0.97: the effect is at most the boost.
      expect(a.effect_pp).toBeGreaterThan(0);
      expect(a.effect_pp).toBeLessThanOrEqual(a.impact_pp + 1e-9);
      expect(a.window_from).toBe(addDays(a.completed_at.slice(0, 10), 14));
      expect(a.window_to <= last_complete_day).toBe(true);
      const verdict =
        a.effect_pp < a.expected_impact_min ? 'below' : a.effect_pp > a.expected_impact_max ? 'above' : 'within';
      expect(a.verdict).toBe(verdict);
    }
  });
});

describe('GET /_reference/truth/events', () => {
  it('dates the alias additions, competitor tracking and prompt changes of the configuration', async () => {
    const { events } = (await call(server, 'GET', '/_reference/truth/events')).body;
    const kinds = new Set(events.map((e: Json) => e.kind));
    for (const kind of ['alias_added', 'competitor_tracked', 'prompt_created']) expect(kinds).toContain(kind);
    for (const e of events) {
      expect(e.date <= TODAY).toBe(true);
      expect(projects.some((p) => p.id === e.project_id)).toBe(true);
    }
    // An alias added mid-window is dated by its creation day and moves only the own brand.
    const aliases = events.filter((e: Json) => e.kind === 'alias_added');
    for (const a of aliases) expect(a.brand_id).not.toBeNull();
  });
});
