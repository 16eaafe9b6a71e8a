/**
 * Ids are unique like random UUIDs: a million chat ids built the way the world builds them (project → prompt →
 * chat per provider and day, seed 5) never collide, and their 122 free bits look random. A 32-bit hash in this
 * path made 18 of 489,822 chat ids of a 10 × 50 × 365 world collide.
 */
import { describe, expect, test } from 'vitest';
import { uuidFrom } from '../../../src/reference/world/hash.js';
import { chatId } from '../../../src/reference/world/metrics/chats.js';
import { PROVIDERS } from '../../../src/reference/world/providers.js';

const SEED = 5;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function millionChatIds(): string[] {
  const team = uuidFrom(SEED, 'team', 1);
  const ids: string[] = [];
  for (let p = 0; p < 10; p++) {
    const project = uuidFrom(SEED, team, 'project', p);
    for (let i = 0; i < 92; i++) {
      const prompt = uuidFrom(SEED, project, 'prompt', i);
      for (let provider = 0; provider < PROVIDERS.length; provider++)
        for (let day = 0; day < 365; day++) ids.push(chatId(SEED, prompt, provider, 20_000 + day));
    }
  }
  return ids;
}

describe('world ids', () => {
  test('a million chat ids are distinct version-4 UUIDs whose 122 free bits are balanced', () => {
    const ids = millionChatIds();
    expect(ids.length).toBeGreaterThanOrEqual(1_000_000);
    expect(new Set(ids).size).toBe(ids.length);
    // Every hex digit but the version digit (12) counts its bits; the variant digit (16) only its two free bits.
    const ones = new Array<number>(128).fill(0);
    let malformed = 0;
    let sampled = 0;
    for (const [n, id] of ids.entries()) {
      if (!UUID_V4.test(id)) malformed += 1;
      if (n % 8 !== 0) continue;
      sampled += 1;
      const hex = id.replaceAll('-', '');
      for (let d = 0; d < 32; d++) {
        const v = Number.parseInt(hex[d] ?? '0', 16);
        for (let b = 0; b < 4; b++) if (v & (8 >> b)) ones[d * 4 + b] = (ones[d * 4 + b] ?? 0) + 1;
      }
    }
    expect(malformed).toBe(0);
    const fixed = new Set([48, 49, 50, 51, 64, 65]);
    let free = 0;
    ones.forEach((count, bit) => {
      if (fixed.has(bit)) return;
      free += 1;
      // σ of a fair bit over 125,000 draws is 0.0014: 0.01 is 7σ; a constant or stuck bit is far outside.
      expect(Math.abs(count / sampled - 0.5), `bit ${bit}`).toBeLessThan(0.01);
    });
    expect(free).toBe(122);
  }, 180_000);

  test('parts are encoded without ambiguity and the seed changes every id', () => {
    expect(uuidFrom('ab', 'c')).not.toBe(uuidFrom('a', 'bc'));
    expect(uuidFrom(1, 'x')).not.toBe(uuidFrom('1', 'x'));
    expect(uuidFrom(SEED, 'chat', 'p', 'openai', 1)).toBe(uuidFrom(SEED, 'chat', 'p', 'openai', 1));
    expect(uuidFrom(SEED, 'chat', 1)).not.toBe(uuidFrom(SEED + 1, 'chat', 1));
  });
});
