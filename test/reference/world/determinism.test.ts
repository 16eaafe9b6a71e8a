import { describe, expect, test } from 'vitest';
import { createWorld } from '../../../src/reference/world/index.js';
import type { ChatItem } from '../../../src/reference/world/metrics/chats.js';
import { demo, query, SEED, UUID } from './support.js';

function snapshot(seed: number) {
  const world = createWorld({ seed });
  const [project] = demo({ seed, prompts: 6, days: 40 });
  if (!project) throw new Error('no demo project');
  const range = query('2026-11-01');
  const prompt = project.prompts[0]?.id ?? '';
  return {
    project,
    chats: world.promptChats(project, prompt, range),
    competitors: world.competitors(project, range),
    trend: world.visibilityTrend(project, range),
    sources: world.sourcesAnalytics(project, range),
    bootstrap: world.bootstrap('Acme Widgets', 'https://acme-widgets.com', 'en', 'US'),
  };
}

describe('determinism', () => {
  test('the same seed gives identical output, also from a fresh world', () => {
    expect(JSON.stringify(snapshot(SEED))).toBe(JSON.stringify(snapshot(SEED)));
  });

  test('another seed gives other data', () => {
    const a = snapshot(SEED);
    const b = snapshot(SEED + 1);
    expect(a.project.id).not.toBe(b.project.id);
    const textA = (a.chats.items as ChatItem[]).map((c) => c.full_content).join();
    const textB = (b.chats.items as ChatItem[]).map((c) => c.full_content).join();
    expect(textA).not.toBe(textB);
    expect(JSON.stringify(a.bootstrap.detected_competitors)).not.toBe(JSON.stringify(b.bootstrap.detected_competitors));
  });

  test('chat ids are deterministic UUIDs, unique per prompt, provider and day', () => {
    const { chats } = snapshot(SEED);
    const ids = (chats.items as ChatItem[]).map((c) => c.id);
    expect(ids.length).toBeGreaterThan(30);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('the order of requests and the cache size do not change answers', () => {
    const [project] = demo({ prompts: 6, days: 40 });
    if (!project) throw new Error('no demo project');
    const range = query('2026-10-20');
    const big = createWorld({ seed: SEED });
    const tiny = createWorld({ seed: SEED, cacheSize: 10 });
    tiny.visibilityTrend(project, query('2026-11-15'));
    expect(tiny.competitors(project, range)).toEqual(big.competitors(project, range));
    expect(tiny.stats().cachedAnswers).toBeLessThanOrEqual(10);
    const prompt = project.prompts[1]?.id ?? '';
    expect(tiny.promptAnalytics(project, prompt, range)).toEqual(big.promptAnalytics(project, prompt, range));
  });
});
