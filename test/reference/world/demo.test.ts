import { describe, expect, test } from 'vitest';
import { createWorld } from '../../../src/reference/world/index.js';
import type { ChatItem } from '../../../src/reference/world/metrics/chats.js';
import { demo, NOW, query, SEED, UUID, WORLD_DAY } from './support.js';

const world = createWorld({ seed: SEED });
const HISTORY_DAYS = 90;
const historyStart = Date.parse(`${WORLD_DAY}T00:00:00.000Z`) - HISTORY_DAYS * 86_400_000;

describe('demo team', () => {
  const projects = demo({ prompts: 30, days: HISTORY_DAYS });

  test('three projects of distinct invented brands with deterministic UUIDs', () => {
    expect(projects).toHaveLength(3);
    expect(new Set(projects.map((p) => p.brand_name)).size).toBe(3);
    for (const p of projects) {
      for (const id of [
        p.id,
        ...p.topics.map((t) => t.id),
        ...p.prompts.map((x) => x.id),
        ...p.competitors.map((c) => c.id),
        ...p.actions.map((a) => a.id),
      ]) {
        expect(id).toMatch(UUID);
      }
      expect(Date.parse(p.created_at)).toBeLessThanOrEqual(NOW);
    }
    expect(demo({ prompts: 30, days: HISTORY_DAYS })).toEqual(projects);
  });

  test('aliases of both match types, 4-8 active competitors and a pending one', () => {
    for (const p of projects) {
      expect(p.aliases.length).toBeGreaterThanOrEqual(2);
      expect(p.aliases.length).toBeLessThanOrEqual(3);
      expect(new Set(p.aliases.map((a) => a.match_type))).toEqual(new Set(['fuzzy', 'exact']));
      const active = p.competitors.filter((c) => c.state === 'active' && c.website !== p.website_url);
      expect(active.length).toBeGreaterThanOrEqual(4);
      expect(active.length).toBeLessThanOrEqual(8);
      expect(p.competitors.filter((c) => c.state === 'pending')).toHaveLength(1);
    }
  });

  test('prompts are mostly active, some suggested or inactive, some change type', () => {
    const all = projects.flatMap((p) => p.prompts);
    const last = all.map((p) => p.type_history.at(-1)?.prompt_type);
    expect(all).toHaveLength(90);
    expect(last.filter((t) => t === 'active').length).toBeGreaterThan(all.length * 0.7);
    expect(last).toContain('suggested');
    expect(last).toContain('inactive');
    expect(all.some((p) => p.type_history.length > 1)).toBe(true);
  });

  test('actions in every status, completed ones inside the window and with targets', () => {
    for (const p of projects) {
      expect(new Set(p.actions.map((a) => a.status))).toEqual(
        new Set(['suggested', 'accepted', 'in_progress', 'completed', 'ignored']),
      );
      const completed = p.actions.filter((a) => a.status === 'completed');
      expect(completed.length).toBeGreaterThanOrEqual(2);
      for (const a of completed) {
        const at = Date.parse(a.completed_at ?? '');
        expect(at).toBeGreaterThan(historyStart);
        expect(at).toBeLessThan(NOW);
        expect(a.targets.length).toBeGreaterThan(0);
      }
      for (const a of p.actions.filter((x) => x.status !== 'completed')) expect(a.completed_at).toBeNull();
    }
  });

  test('the pending competitor is a brand the answers mention', () => {
    for (const p of projects) {
      const pending = p.competitors.find((c) => c.state === 'pending');
      const names = new Set(
        p.prompts.flatMap((x) =>
          (world.promptChats(p, x.id, query('2026-11-14')).items as ChatItem[]).flatMap((c) =>
            c.all_mentions.map((m) => m.name),
          ),
        ),
      );
      expect(names.has(pending?.name ?? '')).toBe(true);
    }
  });
});

describe('detected competitors and bootstrap', () => {
  const [project] = demo({ prompts: 20, days: 30 });
  if (!project) throw new Error('no demo project');

  test('detectCompetitors lists untracked brands seen in the last week of answers, most seen first', () => {
    const detected = world.detectCompetitors(project, NOW);
    expect(detected.length).toBeGreaterThan(0);
    const tracked = new Set([project.brand_name, ...project.competitors.map((c) => c.name)]);
    const counts = new Map<string, number>();
    for (const p of project.prompts) {
      for (const chat of world.promptChats(project, p.id, query('2026-11-15', WORLD_DAY)).items as ChatItem[]) {
        for (const m of chat.all_mentions) if (!tracked.has(m.name)) counts.set(m.name, (counts.get(m.name) ?? 0) + 1);
      }
    }
    expect(new Set(detected.map((d) => d.name))).toEqual(new Set(counts.keys()));
    const seen = detected.map((d) => counts.get(d.name) ?? 0);
    expect([...seen].sort((a, b) => b - a)).toEqual(seen);
  });

  test('bootstrap is deterministic per brand and gives topics, 5 prompts with intents and competitors', () => {
    const a = world.bootstrap('Acme Widgets', 'https://acme-widgets.com', 'en', 'US');
    expect(world.bootstrap('Acme Widgets', 'https://acme-widgets.com', 'en', 'US')).toEqual(a);
    expect(a.topics.length).toBeGreaterThan(0);
    expect(a.prompts).toHaveLength(5);
    for (const p of a.prompts) expect(p.topic_index).toBeLessThan(a.topics.length);
    expect(a.detected_competitors.length).toBeGreaterThan(0);
    expect(world.bootstrap('Globex Tools', 'https://globex.tools', null, null)).not.toEqual(a);
  });
});
