import type * as z from 'zod';
import type { DataOf, EndpointDef } from '../api/endpoint.js';
import type { CallParams } from '../client/api-client.js';
import { salvage } from './rows.js';
import type { Rejection, UnitContext } from './types.js';

export interface Fetched<T> {
  data: T | undefined;
  rejected: Rejection[];
}

/** One call; a body that drifted from the contract becomes a rejection of the whole page. */
export async function fetchOne<E extends EndpointDef>(
  ctx: UnitContext,
  def: E,
  params: CallParams<E>,
): Promise<Fetched<DataOf<E>>> {
  const result = await ctx.client.call(def, { ...params, signal: ctx.signal });
  if (result.ok) return { data: result.data, rejected: [] };
  return {
    data: undefined,
    rejected: [{ endpoint: def.id, payload: result.raw ?? result.body, issues: result.issues }],
  };
}

/**
 * A call whose data holds a list (`pick` finds it in the raw data): when the body drifted, the items that still
 * fit `item` are kept and each one that does not is rejected on its own, with its issues.
 */
export async function fetchList<E extends EndpointDef, I extends z.ZodType>(
  ctx: UnitContext,
  def: E,
  params: CallParams<E>,
  item: I,
  pick: (raw: unknown) => unknown,
): Promise<{ items: z.output<I>[]; data: DataOf<E> | undefined; rejected: Rejection[] }> {
  const result = await ctx.client.call(def, { ...params, signal: ctx.signal });
  if (result.ok) return { items: pick(result.data) as z.output<I>[], data: result.data, rejected: [] };
  const split = result.raw === undefined ? undefined : salvage(pick(result.raw), item);
  if (!split || split.bad.length === 0) {
    return {
      items: [],
      data: undefined,
      rejected: [{ endpoint: def.id, payload: result.raw ?? result.body, issues: result.issues }],
    };
  }
  return {
    items: split.good,
    data: undefined,
    rejected: split.bad.map((b) => ({ endpoint: def.id, payload: b.payload, issues: b.issues })),
  };
}

/** `(raw) => raw.key` for an object, undefined otherwise. */
export function field(key: string): (raw: unknown) => unknown {
  return (raw) => (raw && typeof raw === 'object' ? (raw as Record<string, unknown>)[key] : undefined);
}
