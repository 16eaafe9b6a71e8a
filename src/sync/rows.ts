import type * as z from 'zod';

/** The UTC day of an ISO timestamp or a bare `YYYY-MM-DD`. */
export function dayOf(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  // A UTC timestamp's day is its first ten characters (no Date and ISO text built per answer); days 29 to 31 go
  // through Date.parse, which rolls 2025-02-30 over to March.
  if (UTC_TIMESTAMP.test(value)) return value.slice(0, 10);
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value.slice(0, 10) : new Date(ms).toISOString().slice(0, 10);
}

/** `YYYY-MM-DDTHH:MM[:SS[.fff…]]Z`, a day up to the 28th and a real time of day: Date.parse reads it as that UTC day. */
const UTC_TIMESTAMP = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|1\d|2[0-8])T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?Z$/;

type Shaped = { shape: Record<string, unknown> };

/**
 * Fields of a parsed item that its schema does not name (kept by the loose schemas): the row's `_extra`. `schema` is
 * a zod object schema or a field set made once by `fieldsOf`, never a list written at the call: a list literal is a
 * new object per item, so its set was built and cached anew for every item, and the GC of the cache's entries
 * cost far more than the lookups (docs/lab/2026-11-code-constants.md#the-sync).
 */
export function extraOf(item: object, schema: Shaped | ReadonlySet<string>): Record<string, unknown> | null {
  const known = schema instanceof Set ? (schema as ReadonlySet<string>) : knownFields(schema as Shaped);
  let extra: Record<string, unknown> | null = null;
  // for…in, not Object.keys: no array of keys is allocated per item (a parsed item is a plain object: own keys only).
  for (const key in item) {
    if (known.has(key)) continue;
    extra ??= {};
    extra[key] = (item as Record<string, unknown>)[key];
  }
  return extra;
}

/** The field names of a schema (or list), built once per schema: extraOf runs for every item of every response. */
const knownCache = new WeakMap<object, ReadonlySet<string>>();

/** The field names of a schema (or list), for `extraOf`. */
export function fieldsOf(schema: Shaped | readonly string[]): ReadonlySet<string> {
  return knownFields(schema);
}

function knownFields(schema: Shaped | readonly string[]): ReadonlySet<string> {
  let known = knownCache.get(schema);
  if (!known) {
    known = new Set(Array.isArray(schema) ? schema : Object.keys((schema as Shaped).shape));
    knownCache.set(schema, known);
  }
  return known;
}

/** Splits a drifted list into the items that still fit `item` and those that do not (with their issues). */
export function salvage<T extends z.ZodType>(
  raw: unknown,
  item: T,
): { good: z.output<T>[]; bad: Array<{ payload: unknown; issues: unknown }> } | undefined {
  if (!Array.isArray(raw)) return undefined;
  const good: z.output<T>[] = [];
  const bad: Array<{ payload: unknown; issues: unknown }> = [];
  for (const entry of raw) {
    const parsed = item.safeParse(entry);
    if (parsed.success) good.push(parsed.data);
    else bad.push({ payload: entry, issues: parsed.error.issues });
  }
  return { good, bad };
}

/** An item's own `_extra` plus the extras of its nested objects under their names; null when all are empty. */
export function nestExtra(
  own: Record<string, unknown> | null,
  nested: Record<string, Record<string, unknown> | null | undefined>,
): Record<string, unknown> | null {
  const out: Record<string, unknown> = { ...(own ?? {}) };
  for (const [key, extra] of Object.entries(nested)) if (extra) out[key] = extra;
  return Object.keys(out).length > 0 ? out : null;
}
