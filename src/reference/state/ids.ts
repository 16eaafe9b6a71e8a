/**
 * Seeded identifiers and randomness: the same seed and the same sequence of requests give the same ids, so a
 * test or a demo can be replayed (every seeded UUID is the world's `uuidFrom`: 122 bits of SHA-256 of the seed and
 * the parts). Secrets (API keys, passwords) are not seeded: they come from node:crypto.
 */
import { createHash, randomBytes } from 'node:crypto';
import { uuidFrom } from '../world/hash.js';

/** Hands out distinct seeded UUIDs in order; `kind` keeps families apart. */
export class IdSource {
  private counter = 0;
  constructor(private readonly seed: number) {}
  next(kind: string): string {
    this.counter += 1;
    return uuidFrom(this.seed, kind, this.counter);
  }
}

/** mulberry32, the world's seeded PRNG (one implementation for ids, faults and generated text). */
export { prng } from '../world/hash.js';

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
