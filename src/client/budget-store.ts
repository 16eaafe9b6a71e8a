/**
 * Where a key's sliding window survives a restart. The sync implements it over `ops.rate_budget` (DuckDB); the
 * in-memory store serves tests and one-shot runs. Timestamps are epoch milliseconds of requests the window still
 * counts; a store may keep stale ones, `RateBudget` drops what has left the window when it loads.
 */
import { createHash } from 'node:crypto';

export interface BudgetStore {
  load(keyId: string): Promise<number[]>;
  save(keyId: string, timestamps: number[]): Promise<void>;
}

export class MemoryBudgetStore implements BudgetStore {
  private readonly windows = new Map<string, number[]>();

  async load(keyId: string): Promise<number[]> {
    return [...(this.windows.get(keyId) ?? [])];
  }

  async save(keyId: string, timestamps: number[]): Promise<void> {
    this.windows.set(keyId, [...timestamps]);
  }
}

/**
 * A stable, non-secret name for a key: `<first 12 characters>-<8 hex of sha256>`. The 12-character prefix is what
 * the API itself displays (`key_prefix`); the hash tells apart two keys that share a prefix. Never the key.
 */
export function keyIdFor(apiKey: string): string {
  const hash = createHash('sha256').update(apiKey).digest('hex').slice(0, 8);
  return apiKey.length > 16 ? `${apiKey.slice(0, 12)}-${hash}` : `key-${hash}`;
}
