import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/log.js';
import {
  formatPlan,
  LOGGED_WAIT_MS,
  LogProgress,
  type SyncPlan,
  TerminalProgress,
  type UnitProgress,
} from '../../src/extract/progress.js';

const plan: SyncPlan = {
  teamId: 'agency-a',
  today: '2026-03-15',
  window: { from: '2026-03-09', to: '2026-03-15' },
  streams: [
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

describe('progress', () => {
  it('the plan shows requests per stream, what is complete or skipped, the floor time and unreachable projects', () => {
    const text = formatPlan(plan);
    expect(text).toMatch(/chats\s+24\s+24\s+3\/12/);
    expect(text).toMatch(/team_members\s+0\s+0\s+skipped: needs the user id/);
    expect(text).toContain('total 140 requests (discovery included); floor 2m00s at 70 per 1m00s');
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
