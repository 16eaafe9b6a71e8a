import { describe, expect, it } from 'vitest';
import { addDays, chunkRange, dayDiff, dayNumber, mergeRanges, subtractRanges } from '../../src/core/days.js';
import { analysisWindow, planStream, rotationSlots } from '../../src/sync/planner.js';
import type { StreamDef, SyncSettings } from '../../src/sync/types.js';

const settings: SyncSettings = {
  today: '2026-03-15',
  lookbackDays: 3,
  chunkDays: 31,
  windowDays: 7,
  topDomains: 3,
  maxSourcePages: 5,
  rotationDays: 1,
};

const daily = { name: 'chats', tables: [], grain: 'daily', estimate: () => 1 } as unknown as StreamDef;
const snapshot = { name: 'projects', tables: [], grain: 'snapshot', estimate: () => 2 } as unknown as StreamDef;
const parent = { id: 'q1', projectId: 'p1', promptId: 'q1', start: '2026-01-01' };

describe('day ranges', () => {
  it('merges, subtracts and chunks inclusive day ranges', () => {
    expect(
      mergeRanges([
        { from: '2026-01-05', to: '2026-01-06' },
        { from: '2026-01-01', to: '2026-01-04' },
        { from: '2026-01-09', to: '2026-01-10' },
      ]),
    ).toEqual([
      { from: '2026-01-01', to: '2026-01-06' },
      { from: '2026-01-09', to: '2026-01-10' },
    ]);
    expect(
      subtractRanges({ from: '2026-01-01', to: '2026-01-31' }, [{ from: '2026-01-10', to: '2026-01-20' }]),
    ).toEqual([
      { from: '2026-01-01', to: '2026-01-09' },
      { from: '2026-01-21', to: '2026-01-31' },
    ]);
    expect(chunkRange({ from: '2026-02-27', to: '2026-03-03' }, 2)).toEqual([
      { from: '2026-02-27', to: '2026-02-28' },
      { from: '2026-03-01', to: '2026-03-02' },
      { from: '2026-03-03', to: '2026-03-03' },
    ]);
  });
});

const landedBefore = (ranges: Array<[string, string]>) => ({
  before: ranges.map(([from, to]) => ({ from, to })),
  today: [],
});
const show = (units: ReturnType<typeof planStream>['units']) =>
  units.map((u) => `${u.range.from}..${u.range.to}${u.fresh ? ' new' : ''}`);

describe('planner', () => {
  it('plans a first sync from the parent start in chunks; every unit is new (no delete)', () => {
    const plan = planStream(daily, [parent], new Map(), settings);
    expect(show(plan.units)).toEqual([
      '2026-01-01..2026-01-31 new',
      '2026-02-01..2026-03-03 new',
      '2026-03-04..2026-03-15 new',
    ]);
    expect(plan.complete).toBe(0);
  });

  it('a night asks one range per parent: the new days and the lookback days before them, merged', () => {
    const nightly = planStream(
      daily,
      [parent],
      new Map([['q1', landedBefore([['2026-01-01', '2026-03-14']])]]),
      settings,
    );
    expect(show(nightly.units)).toEqual(['2026-03-13..2026-03-15']);
    expect(nightly.complete).toBe(1);
    // Four nights missed: still one request, from the lookback days of the last sync to today.
    const missed = planStream(
      daily,
      [parent],
      new Map([['q1', landedBefore([['2026-01-01', '2026-03-10']])]]),
      settings,
    );
    expect(show(missed.units)).toEqual(['2026-03-09..2026-03-15']);
    expect(missed.complete).toBe(0);
    // An old gap (a killed backfill) is chunked on its own; the tail is still one range.
    const gap = planStream(
      daily,
      [parent],
      new Map([
        [
          'q1',
          landedBefore([
            ['2026-01-01', '2026-01-10'],
            ['2026-02-20', '2026-03-14'],
          ]),
        ],
      ]),
      settings,
    );
    expect(show(gap.units)).toEqual([
      '2026-01-11..2026-02-10 new',
      '2026-02-11..2026-02-19 new',
      '2026-03-13..2026-03-15',
    ]);
  });

  it('a re-run the same day plans the units of the first run and leaves out those landed today', () => {
    const first = planStream(daily, [parent], new Map(), settings);
    const landedToday = { before: [], today: [{ from: '2026-01-01', to: '2026-01-31' }] };
    const rerun = planStream(daily, [parent], new Map([['q1', landedToday]]), settings);
    expect(show(rerun.units)).toEqual(show(first.units).slice(1));
    const all = { before: [], today: [{ from: '2026-01-01', to: '2026-03-15' }] };
    expect(planStream(daily, [parent], new Map([['q1', all]]), settings).units).toEqual([]);
  });

  it('honours --since and --until, and takes snapshots once per day', () => {
    const plan = planStream(daily, [parent], new Map(), { ...settings, since: '2026-03-01', until: '2026-03-10' });
    expect(plan.units.map((u) => `${u.range.from}..${u.range.to}`)).toEqual(['2026-03-01..2026-03-10']);
    expect(planStream(snapshot, [parent], new Map(), settings).requests).toBe(2);
    const today = new Map([['q1', { before: [], today: [{ from: '2026-03-15', to: '2026-03-15' }] }]]);
    expect(planStream(snapshot, [parent], today, settings).units).toEqual([]);
    expect(analysisWindow(settings)).toEqual({ from: '2026-03-09', to: '2026-03-15' });
  });

  it('--full-refresh replaces: no unit is new', () => {
    const plan = planStream(daily, [parent], new Map(), settings, { fullRefresh: true });
    expect(plan.units.every((u) => !u.fresh)).toBe(true);
    const rejected = planStream(daily, [parent], new Map(), settings, { rejectedParents: new Set(['q1']) });
    expect(rejected.units.every((u) => !u.fresh)).toBe(true);
  });
});

describe('rotation', () => {
  const rotatedDaily = { ...daily, rotated: () => true } as StreamDef;
  const rotatedWindow = { ...snapshot, rotated: () => true } as StreamDef;
  const prompts = Array.from({ length: 23 }, (_, i) => ({
    id: `q${String(i).padStart(2, '0')}`,
    projectId: 'p1',
    promptId: `q${i}`,
    start: '2026-01-01',
  }));

  it.each([
    [7, 3],
    [5, 1],
    [7, 2],
  ])(
    'period %i: every prompt is refreshed within the period, the same share each night (lookback %i)',
    (period, lookbackDays) => {
      const rotating = { ...settings, rotationDays: period, lookbackDays };
      // Everything landed by a first sync on 2026-03-01; then 3 periods of nights, each landing what it plans.
      const state = new Map(prompts.map((p) => [p.id, landedBefore([['2026-01-01', '2026-03-01']])]));
      const windows = new Map(prompts.map((p) => [p.id, landedBefore([['2026-03-01', '2026-03-01']])]));
      const refreshed = new Map(prompts.map((p) => [p.id, ['2026-03-01']]));
      for (let night = 1; night <= period * 3; night++) {
        const today = addDays('2026-03-01', night);
        const tonight = { ...rotating, today };
        const daily = planStream(rotatedDaily, prompts, state, tonight);
        const window = planStream(rotatedWindow, prompts, windows, tonight);
        // The same prompts in both streams, one request each, a share of 1/period of them (within one).
        expect(window.units.map((u) => u.parent.id)).toEqual(daily.units.map((u) => u.parent.id));
        expect(daily.units.length).toBeGreaterThanOrEqual(Math.floor(prompts.length / period));
        expect(daily.units.length).toBeLessThanOrEqual(Math.ceil(prompts.length / period));
        expect(daily.deferred + daily.units.length).toBe(prompts.length);
        for (const u of daily.units) {
          const last = state.get(u.parent.id)?.before.at(-1)?.to ?? '';
          // One range from the lookback days before the first missing day to today: no day is skipped.
          expect(u.range.from <= addDays(last, 1)).toBe(true);
          expect(u.range.to).toBe(today);
          state.set(u.parent.id, landedBefore([['2026-01-01', today]]));
          windows.set(u.parent.id, landedBefore([[today, today]]));
          refreshed.get(u.parent.id)?.push(today);
        }
      }
      for (const days of refreshed.values()) {
        for (let i = 1; i < days.length; i++)
          expect(dayDiff(days[i - 1] ?? '', days[i] ?? '')).toBeLessThanOrEqual(period);
        expect(days.length).toBeGreaterThanOrEqual(4);
      }
    },
  );

  it('a prompt never landed is due at once; a refresh a whole period old is due whatever its slot', () => {
    const rotating = { ...settings, rotationDays: 7 };
    const [first] = prompts;
    const fresh = planStream(rotatedDaily, prompts, new Map(), rotating);
    expect(fresh.units).toHaveLength(prompts.length * 3);
    const slots = rotationSlots(prompts, 7);
    const notTonight = prompts.find((p) => slots.get(p.id) !== dayNumber(settings.today) % 7) ?? first;
    const stale = new Map([[notTonight?.id ?? '', landedBefore([['2026-01-01', '2026-03-08']])]]);
    const plan = planStream(rotatedDaily, notTonight ? [notTonight] : [], stale, rotating);
    expect(plan.units).toHaveLength(1);
    const recent = new Map([[notTonight?.id ?? '', landedBefore([['2026-01-01', '2026-03-09']])]]);
    expect(planStream(rotatedDaily, notTonight ? [notTonight] : [], recent, rotating).deferred).toBe(1);
    // rotationDays 1: every night, every prompt.
    expect(planStream(rotatedDaily, prompts, new Map(), settings).units.length).toBe(prompts.length * 3);
  });

  it('projects take the nights from the last backwards: a night with a prompt more is not one with a project more', () => {
    const projects = Array.from({ length: 10 }, (_, i) => ({
      id: `p${String(i).padStart(2, '0')}`,
      start: '2026-01-01',
    }));
    const many = Array.from({ length: 500 }, (_, i) => ({ ...parent, id: `q${String(i).padStart(3, '0')}` }));
    const perNight = (slots: Map<string, number>) =>
      Array.from({ length: 7 }, (_, night) => [...slots.values()].filter((s) => s === night).length);
    const promptNights = perNight(rotationSlots(many, 7));
    const projectNights = perNight(rotationSlots(projects, 7));
    expect(promptNights).toEqual([72, 72, 72, 71, 71, 71, 71]);
    expect(projectNights).toEqual([1, 1, 1, 1, 2, 2, 2]);
    // Every project still comes round once a period, each on a night of its own share.
    expect(new Set(rotationSlots(projects, 7).values()).size).toBe(7);
  });
});
