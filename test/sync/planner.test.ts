import { describe, expect, it } from 'vitest';
import { analysisWindow, planStream } from '../../src/extract/planner.js';
import type { StreamDef, SyncSettings } from '../../src/extract/types.js';
import { chunkRange, mergeRanges, subtractRanges } from '../../src/warehouse/day-ranges.js';

const settings: SyncSettings = {
  today: '2026-03-15',
  lookbackDays: 3,
  chunkDays: 31,
  windowDays: 7,
  topDomains: 3,
  maxSourcePages: 5,
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

describe('planner', () => {
  it('plans a first sync from the parent start in chunks, with the lookback days as their own unit', () => {
    const plan = planStream(daily, [parent], new Map(), settings);
    expect(plan.units.map((u) => `${u.range.from}..${u.range.to}${u.lookback ? ' L' : ''}`)).toEqual([
      '2026-01-01..2026-01-31',
      '2026-02-01..2026-03-03',
      '2026-03-04..2026-03-12',
      '2026-03-13..2026-03-15',
    ]);
    expect(plan.complete).toBe(0);
  });

  it('plans only the lookback when everything is finished, and the gaps when some are missing', () => {
    const done = new Map([['q1', [{ from: '2026-01-01', to: '2026-03-15' }]]]);
    const plan = planStream(daily, [parent], done, settings);
    expect(plan.units.map((u) => [u.range.from, u.range.to, u.lookback])).toEqual([['2026-03-13', '2026-03-15', true]]);
    expect(plan.complete).toBe(1);
    const gap = new Map([['q1', [{ from: '2026-01-01', to: '2026-02-10' }]]]);
    const resumed = planStream(daily, [parent], gap, settings);
    expect(resumed.units.map((u) => `${u.range.from}..${u.range.to}`)).toEqual([
      '2026-02-11..2026-03-12',
      '2026-03-13..2026-03-15',
    ]);
  });

  it('honours --since and --until, and takes snapshots once per day', () => {
    const plan = planStream(daily, [parent], new Map(), { ...settings, since: '2026-03-01', until: '2026-03-10' });
    expect(plan.units.map((u) => `${u.range.from}..${u.range.to}`)).toEqual([
      '2026-03-01..2026-03-07',
      '2026-03-08..2026-03-10',
    ]);
    expect(planStream(snapshot, [parent], new Map(), settings).requests).toBe(2);
    const today = new Map([['q1', [{ from: '2026-03-15', to: '2026-03-15' }]]]);
    expect(planStream(snapshot, [parent], today, settings).units).toEqual([]);
    expect(analysisWindow(settings)).toEqual({ from: '2026-03-09', to: '2026-03-15' });
  });
});
