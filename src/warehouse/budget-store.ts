import type { Kysely } from 'kysely';
import type { OpsDatabase } from './kysely/index.js';

/**
 * The client's `BudgetStore` seam over ops.rate_budget: the request timestamps (ms) of the current sliding
 * window per key id, so a restarted sync inside the window does not burst. `keyId` is the client's non-secret
 * identifier of the key, never the key.
 */
export class DuckDBBudgetStore {
  private opened: Promise<Kysely<OpsDatabase>> | undefined;

  /** `db`: the ops tables, or a function that opens them when the store is first used (and only then). */
  constructor(private readonly db: Kysely<OpsDatabase> | (() => Promise<Kysely<OpsDatabase>>)) {}

  private async ops(): Promise<Kysely<OpsDatabase>> {
    if (typeof this.db !== 'function') return this.db;
    this.opened ??= this.db();
    return this.opened;
  }

  async load(keyId: string): Promise<number[]> {
    const row = await (await this.ops())
      .selectFrom('ops.rate_budget')
      .select('timestamps')
      .where('key_id', '=', keyId)
      .executeTakeFirst();
    if (!row) return [];
    const parsed: unknown = JSON.parse(row.timestamps);
    return Array.isArray(parsed) ? parsed.filter((t): t is number => typeof t === 'number') : [];
  }

  async save(keyId: string, timestamps: readonly number[]): Promise<void> {
    const values = { key_id: keyId, timestamps: JSON.stringify(timestamps), updated_at: new Date() };
    await (await this.ops())
      .insertInto('ops.rate_budget')
      .values(values)
      .onConflict((oc) =>
        oc.column('key_id').doUpdateSet({ timestamps: values.timestamps, updated_at: values.updated_at }),
      )
      .execute();
  }
}
