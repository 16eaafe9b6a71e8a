import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/log.js';
import {
  formatPlan,
  LOGGED_WAIT_MS,
  LogProgress,
  type SyncPlan,
  TerminalProgress,
  type UnitProgress,
} from '../../src/sync/progress.js';
import { eta, measuredAfter, SyncPace } from '../../src/sync/unit-runner.js';

const plan: SyncPlan = {
  teamId: 'agency-a',
  today: '2026-03-15',
  window: { from: '2026-03-09', to: '2026-03-15' },
  streams: [
    { stream: 'prompts', units: 3, requests: 0, parents: 3, complete: 0, deferred: 0 },
    { stream: 'chats', units: 24, requests: 24, parents: 12, complete: 3, deferred: 0 },
    { stream: 'prompt_domains', units: 2, requests: 2, parents: 12, complete: 0, deferred: 10 },
    {
      stream: 'team_members',
      units: 0,
      requests: 0,
      parents: 0,
      complete: 0,
      deferred: 0,
      skipped: 'needs the user id',
    },
  ],
  requests: 140,
  activePrompts: 10,
  promptRequests: 26,
  otherRequests: 114,
  requestsPerActivePrompt: 2.6,
  rotationDays: 7,
  usablePerWindow: 70,
  windowMs: 60_000,
  floorMs: 120_000,
  unreachable: [{ project: 'Old brand', reason: 'no project of this team has this id or name' }],
};

const unit: UnitProgress = {
  teamId: 'agency-a',
  stream: 'chats',
  unitKey: 'chats:p:2026-03-01..2026-03-15',
  done: 7,
  total: 24,
  requests: 31,
  budgetAvailable: 0,
  usablePerWindow: 70,
  waits: 2,
  etaMs: 95_000,
  rows: 120,
};

function sink() {
  const writes: string[] = [];
  return { writes, out: { write: (t: string) => writes.push(t), columns: 200 } };
}

describe('the ETA', () => {
  const budget = { available: () => 70, usable: 70, windowMs: 60_000 };
  it("is the plan's floor until the pace of enough units is measured, then the pace (never under the floor)", () => {
    // 400 units, 441 requests left; the first unit took 2.4 s (a cold DuckDB): not 16 minutes, the floor
    expect(measuredAfter(400)).toBe(20);
    expect(eta(2_400, 1, 400, 441, budget)).toBe(((441 - 70) / 70) * 60_000);
    expect(eta(2_400, 19, 400, 441, budget)).toBe(((441 - 70) / 70) * 60_000);
    // measured: 19 units in the 38 s after the first landed, 380 left at that pace
    expect(eta(38_000, 20, 400, 300, budget)).toBe(760_000);
    // measured but faster than the key allows: the floor still holds
    expect(eta(1_000, 20, 400, 441, budget)).toBe(((441 - 70) / 70) * 60_000);
    // a small sync measures once all its units (or 5) landed
    expect(measuredAfter(3)).toBe(3);
    expect(measuredAfter(24)).toBe(5);
  });

  it("measures the pace from the first landed unit, not from the sync's start (issue 56: 2 m 50 s for a 13 s sync)", () => {
    // the embedded demo's shape: 385 units; discovery and the fetches that run ahead of the first landing take 7 s,
    // then the units land every 21 ms
    const idle = { available: () => 70, usable: 70, windowMs: 1_000 };
    const pace = new SyncPace();
    for (let done = 1; done <= 20; done++) pace.landed(7_000 + (done - 1) * 21, done);
    const left = pace.eta(7_000 + 19 * 21, 20, 385, 0, idle);
    expect(left).toBeCloseTo(365 * 21, 0);
    // measured from the start it would say 7.4 s / 20 units x 365: over two minutes for under 8 s of work
    expect(left).toBeLessThan(((7_000 + 19 * 21) / 20) * 365 * 0.1);
  });
});

describe('progress', () => {
  it('the plan shows requests per stream, what is complete or skipped, the floor time and unreachable projects', () => {
    const text = formatPlan(plan);
    expect(text).toMatch(/chats\s+24\s+24\s+3\/12/);
    expect(text).toMatch(/team_members\s+0\s+0\s+skipped: needs the user id/);
    expect(text).toContain('total 140 requests, one per page expected');
    expect(text).toContain('floor 2m00s at 70 per 1m00s');
    // the rows add up to the total: discovery has a row, a stream landed from it says so
    const rows = text.split('\n').filter((l) => /^ {2}\S+ +(-|\d+) +\d+/.test(l));
    const sum = rows.reduce((n, l) => n + Number(/^ {2}\S+ +(?:-|\d+) +(\d+)/.exec(l)?.[1]), 0);
    expect(sum).toBe(140);
    expect(text).toMatch(/discovery +- +114/);
    expect(text).toMatch(/prompts +3 +0 +0\/3 +\(from discovery\)/);
    expect(text).toContain('unreachable project Old brand');
    expect(text).toMatch(/prompt_domains\s+2\s+2\s+0\/12\s+10 later/);
    expect(text).toContain('2.6 requests per active prompt (26 for 10 active prompts; 114 project, team and discovery');
    expect(text).toContain('once every 7 nights per prompt');
  });

  it('on a terminal: what, how far, budget, ETA, and a wait in progress with its reason and time left', () => {
    let now = 1_000_000;
    const { writes, out } = sink();
    const progress = new TerminalProgress(out, () => now);
    progress.unit(unit);
    expect(progress.line()).toBe('agency-a chats 7/24 units · 31 requests · budget 0/70 · waits 2 · eta 1m35s');
    // against the plan: the same count (requests, discovery included), and past the estimate it says so
    progress.unit({ ...unit, requestsPlanned: 140 });
    expect(progress.line()).toContain('· 31/140 requests ·');
    progress.unit({ ...unit, requests: 150, requestsPlanned: 140 });
    expect(progress.line()).toContain('· 150 requests (plan 140) ·');
    progress.unit(unit);
    progress.wait('agency-a', { reason: 'budget', ms: 12_000, until: now + 12_000 });
    expect(progress.line()).toContain('waiting 12s (rate budget)');
    expect(writes.at(-1)?.startsWith('\r\x1b[2K')).toBe(true);
    expect(writes.at(-1)).toContain('waiting 12s');
    now += 13_000;
    expect(progress.line()).not.toContain('waiting');
    // A second team shares the line; a finished team leaves it with its summary on a line of its own.
    progress.wait('agency-b', { reason: 'retry-after', ms: 30_000, until: now + 30_000 });
    expect(progress.line()).toMatch(/agency-a chats .* \| agency-b starting · waiting 30s \(Retry-After of a 429\)/);
    progress.done('agency-a', {
      status: 'succeeded',
      units: '24/24',
      requests: 31,
      rows: { 'raw.chats': 1200, 'raw.chat_mentions': 3400 },
      rejected: { chats: 2 },
    });
    // a block a person reads, not a JSON blob
    const done = writes.find((w) => w.includes('team agency-a: sync succeeded')) ?? '';
    expect(done).toContain('24/24 units · 31 requests');
    expect(done).toContain('rows landed: raw.chats 1,200, raw.chat_mentions 3,400');
    expect(done).toContain('rows rejected (schema drift): chats 2');
    expect(done).not.toMatch(/[{[]"/);
    expect(progress.line()).toMatch(/^agency-b/);
  });

  it('in JSON logs: the plan, units at debug, waits of 5 s or more at info (no silent hang), the summary', () => {
    const lines: string[] = [];
    const stream = { write: (t: string) => lines.push(t) } as unknown as NodeJS.WritableStream;
    const progress = new LogProgress(createLogger({ format: 'json', level: 'info', stream }));
    progress.plan(plan);
    progress.unit(unit);
    progress.wait('agency-a', { reason: 'budget', ms: 200, until: Date.now() + 200 });
    progress.wait('agency-a', { reason: 'retry-after', ms: LOGGED_WAIT_MS, until: Date.now() + LOGGED_WAIT_MS });
    progress.done('agency-a', { status: 'succeeded' });
    const parsed = lines.map((l) => JSON.parse(l) as { msg: string; reason?: string; ms?: number });
    expect(parsed.map((p) => p.msg)).toEqual(['sync plan', 'waiting', 'sync done']);
    expect(parsed[1]).toMatchObject({ reason: 'retry-after', ms: LOGGED_WAIT_MS });
  });
});
