/** Shared setup of the world tests: a demo team on a fixed seed and a clock at noon of its last day. */
import { dayNumber } from '../../../src/core/days.js';
import { createWorld } from '../../../src/reference/world/index.js';
import type { ProjectConfig, WorldQuery } from '../../../src/reference/world/types.js';

export const SEED = 20251121;
/**
 * The world tests' day, not test/fixtures.ts's TODAY: their queries name fixed days of this world's history, a
 * seed and size of its own (the demo of 2026-11-21).
 */
export const WORLD_DAY = '2026-11-21';
export const NOW = Date.parse(`${WORLD_DAY}T12:00:00.000Z`);
export const TEAM = '7e57c0de-0000-4000-8000-000000000001';

export function demo(
  options: { seed?: number; prompts?: number; days?: number; projects?: number } = {},
): ProjectConfig[] {
  const world = createWorld({ seed: options.seed ?? SEED });
  return world.demoTeam({
    seed: options.seed ?? SEED,
    projects: options.projects ?? 3,
    promptsPerProject: options.prompts ?? 12,
    historyDays: options.days ?? 90,
    today: WORLD_DAY,
    teamId: TEAM,
  });
}

export function query(dateFrom: string, dateTo: string = WORLD_DAY, now = NOW, providers?: string[]): WorldQuery {
  return { range: { from: dateFrom, to: dateTo }, now, ...(providers ? { providers } : {}) };
}

export function dayOf(iso: string): string {
  return iso.slice(0, 10);
}

export function daysBetween(a: string, b: string): number {
  return dayNumber(b) - dayNumber(a);
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
