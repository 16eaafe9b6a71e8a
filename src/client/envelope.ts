/**
 * Unwraps the success envelopes of spec Conventions 2: A `{success: true, data}`, B `{code, message, data}`, or
 * `none` (the body is the data). A body that does not fit its envelope is reported as an issue, never thrown:
 * the caller decides what schema drift costs.
 */
import type * as z from 'zod';
import type { EnvelopeKind } from '../api/envelopes.js';

export type DecodedEnvelope = { ok: true; data: unknown } | { ok: false; issue: z.core.$ZodIssue };

export function decodeEnvelope(kind: EnvelopeKind, body: unknown): DecodedEnvelope {
  if (kind === 'none') return { ok: true, data: body };
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    return fail(`envelope ${kind}: expected an object body, got ${describe(body)}`, body);
  }
  const b = body as Record<string, unknown>;
  if (!('data' in b)) return fail(`envelope ${kind}: the body has no "data" field`, body);
  if (kind === 'A') {
    if (b.success !== true) return fail(`envelope A: "success" is ${JSON.stringify(b.success)}, not true`, body);
    return { ok: true, data: b.data };
  }
  if (typeof b.code !== 'number' || !Number.isInteger(b.code) || typeof b.message !== 'string') {
    return fail('envelope B: "code" (integer) and "message" (string) are required', body);
  }
  return { ok: true, data: b.data };
}

function fail(message: string, input: unknown): DecodedEnvelope {
  return { ok: false, issue: { code: 'custom', path: [], message, input } };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
