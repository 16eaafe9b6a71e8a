/**
 * Seeded identifiers and randomness: the same seed and the same sequence of requests give the same ids, so a
 * test or a demo can be replayed. Secrets (API keys, passwords) are not seeded: they come from node:crypto.
 */
import { createHash, randomBytes } from 'node:crypto';

/** A UUID (version-4 layout) derived from the seed and the parts given. */
export function seededUuid(seed: number, ...parts: Array<string | number>): string {
  const hex = createHash('sha256')
    .update(`${seed}|${parts.join('|')}`)
    .digest('hex');
  const variant = ((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Hands out distinct seeded UUIDs in order; `kind` keeps families apart. */
export class IdSource {
  private counter = 0;
  constructor(private readonly seed: number) {}
  next(kind: string): string {
    this.counter += 1;
    return seededUuid(this.seed, kind, this.counter);
  }
}

/** mulberry32, the world's seeded PRNG (one implementation for ids, faults and generated text). */
export { prng } from './world/hash.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random token of `length` base62 characters. */
export function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return out;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
