/**
 * When answers exist: on-time answers of day D from D 06:00 UTC, late ones from D+1 06:00 UTC, a chat's date
 * inside D before 06:00; nothing dated after `now`; no answers on days a prompt is not active.
 */
import { describe, expect, test } from 'vitest';
import { DAY_MS } from '../../../src/core/days.js';
import { createWorld } from '../../../src/reference/world/index.js';
import type { ChatItem } from '../../../src/reference/world/metrics/chats.js';
import { dayOf, demo, query, SEED } from './support.js';

const HOUR = 3_600_000;

describe('late answers', () => {
  const world = createWorld({ seed: SEED, lateFraction: 0.3 });
  const [project] = demo({ prompts: 20, days: 60 });
  if (!project) throw new Error('no demo project');
  const D = '2026-11-10';
  const start = Date.parse(`${D}T00:00:00.000Z`);
  const count = (now: number) =>
    project.prompts.reduce((n, p) => n + world.promptChats(project, p.id, query(D, D, now)).items.length, 0);

  test('a day has no answers before 06:00, on-time ones from 06:00, late ones only from 06:00 the next day', () => {
    const beforePublish = count(start + 6 * HOUR - 1);
    const onTime = count(start + 6 * HOUR);
    const nextDayEarly = count(start + DAY_MS + 5 * HOUR);
    const nextDayPublished = count(start + DAY_MS + 6 * HOUR);
    expect(beforePublish).toBe(0);
    expect(onTime).toBeGreaterThan(0);
    expect(nextDayEarly).toBe(onTime);
    expect(nextDayPublished).toBeGreaterThan(onTime);
    // About 30% late, on a few hundred answers.
    const lateShare = 1 - onTime / nextDayPublished;
    expect(lateShare).toBeGreaterThan(0.15);
    expect(lateShare).toBeLessThan(0.45);
    expect(count(start + 30 * DAY_MS)).toBe(nextDayPublished);
  });

  test('a chat is dated inside its day, before it became visible, never after now', () => {
    const now = start + DAY_MS + 6 * HOUR;
    for (const prompt of project.prompts) {
      for (const chat of world.promptChats(project, prompt.id, query('2026-11-01', '2026-11-30', now))
        .items as ChatItem[]) {
        const t = Date.parse(chat.date);
        expect(t).toBeLessThan(now);
        expect(t - Date.parse(`${dayOf(chat.date)}T00:00:00.000Z`)).toBeLessThan(6 * HOUR);
      }
    }
  });

  test('lateFraction 0 makes every answer visible on its day', () => {
    const onTimeWorld = createWorld({ seed: SEED, lateFraction: 0 });
    const n = (now: number) =>
      project.prompts.reduce((s, p) => s + onTimeWorld.promptChats(project, p.id, query(D, D, now)).items.length, 0);
    expect(n(start + 6 * HOUR)).toBe(n(start + 30 * DAY_MS));
  });
});

describe('prompt activity', () => {
  const world = createWorld({ seed: SEED });
  const projects = demo({ prompts: 24, days: 120 });
  const range = query('2026-08-01');

  test('answers exist exactly on the days a prompt is active', () => {
    let changed = 0;
    for (const project of projects) {
      for (const prompt of project.prompts) {
        const analytics = world.promptAnalytics(project, prompt.id, range) as {
          visibility_chart: Record<string, unknown[]>;
        };
        const days = new Set(Object.keys(analytics.visibility_chart));
        const activeAt = (day: string) => {
          const t = Date.parse(`${day}T00:00:00.000Z`);
          let type: string | null = null;
          for (const h of prompt.type_history) if (Date.parse(h.from) <= t) type = h.prompt_type;
          return type === 'active' && Date.parse(prompt.created_at) <= t;
        };
        for (const day of days) expect(activeAt(day)).toBe(true);
        if (prompt.type_history.length > 1) changed++;
        const last = prompt.type_history.at(-1);
        if (last?.prompt_type === 'inactive') {
          const off = dayOf(last.from);
          expect([...days].every((d) => d <= off)).toBe(true);
          expect(days.size).toBeGreaterThan(0);
        }
        if (prompt.type_history.every((h) => h.prompt_type === 'suggested')) expect(days.size).toBe(0);
      }
    }
    expect(changed).toBeGreaterThan(0);
  });
});
