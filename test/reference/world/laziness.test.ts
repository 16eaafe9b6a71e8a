/**
 * The world keeps compact facts, never text: aggregating a large project grows the heap far less than the text
 * of its answers would take, and the facts cache never exceeds its bound.
 */

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, test } from 'vitest';
import { createWorld } from '../../../src/reference/world/index.js';
import type { ChatItem } from '../../../src/reference/world/metrics/chats.js';
import { demo, query, SEED } from './support.js';

function collector(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  return typeof gc === 'function' ? gc : () => {};
}

test('aggregating a 100-prompt project keeps heap growth far below the size of its text', () => {
  const gc = collector();
  const [project] = demo({ prompts: 100, days: 70, projects: 1 });
  if (!project) throw new Error('no demo project');
  const range = query('2026-09-12');
  const growthOf = (cacheSize: number) => {
    const world = createWorld({ seed: SEED, cacheSize });
    gc();
    const before = process.memoryUsage().heapUsed;
    world.visibilityTrend(project, range);
    gc();
    return { world, growth: process.memoryUsage().heapUsed - before };
  };
  const uncached = growthOf(0);
  const cached = growthOf(80_000);
  cached.world.competitors(project, range);
  cached.world.sourcesAnalytics(project, range);
  const stats = cached.world.stats();
  expect(stats.answersGenerated).toBeGreaterThan(15_000);
  expect(stats.cachedAnswers).toBe(stats.answersGenerated);
  // Aggregates never produce text.
  expect(stats.textCharsGenerated).toBe(0);

  // Text is produced only for chats: sample its size on one prompt.
  const sample = cached.world.promptChats(project, project.prompts[0]?.id ?? '', range).items as ChatItem[];
  const avgText = sample.reduce((s, c) => s + c.full_content.length, 0) / sample.length;
  const perAnswer = (cached.growth - uncached.growth) / stats.cachedAnswers;
  expect(perAnswer).toBeLessThan(avgText / 4);
  // What does not depend on the number of answers (contexts, plans, detection memos) stays small too.
  expect(uncached.growth).toBeLessThan(16 * 1024 * 1024);
});

test('the facts cache is bounded whatever is asked', () => {
  const [project] = demo({ prompts: 30, days: 120, projects: 1 });
  if (!project) throw new Error('no demo project');
  const world = createWorld({ seed: SEED, cacheSize: 1_000 });
  world.visibilityTrend(project, query('2026-07-25'));
  const { cachedAnswers, answersGenerated } = world.stats();
  expect(answersGenerated).toBeGreaterThan(5_000);
  expect(cachedAnswers).toBeLessThanOrEqual(1_000);
  expect(cachedAnswers).toBeGreaterThan(0);
});
