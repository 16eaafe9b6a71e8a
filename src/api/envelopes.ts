/**
 * The two success envelopes of the public data API (Conventions 2):
 * A `{success: true, data}` and B `{code, message, data}` where `message` is the status line (`202 Accepted`).
 * Both are loose: an extra top-level field does not break the client.
 */
import * as z from 'zod';
import { statusLine } from './status.js';

export type EnvelopeKind = 'A' | 'B' | 'none';

export function envelopeA<T extends z.ZodType>(data: T) {
  return z.looseObject({ success: z.literal(true), data });
}

/**
 * Envelope B as the client parses it: `code` any integer, `message` any string. The reference server builds its
 * bodies with `wrapB`, which always pairs `code` with its own status line.
 */
export function envelopeB<T extends z.ZodType>(data: T) {
  return z.looseObject({ code: z.int(), message: z.string(), data });
}

/** Envelope B exactly as sent for one status: `code` and `message` are literals (`202`, `202 Accepted`). */
export function envelopeBFor<T extends z.ZodType>(status: number, data: T) {
  return z.looseObject({ code: z.literal(status), message: z.literal(statusLine(status)), data });
}

/** Wraps a data schema in the given envelope; `none` returns it as the whole body. */
export function envelope<T extends z.ZodType>(kind: EnvelopeKind, data: T): z.ZodType {
  if (kind === 'A') return envelopeA(data);
  if (kind === 'B') return envelopeB(data);
  return data;
}

export interface EnvelopeABody<T> {
  success: true;
  data: T;
}
export interface EnvelopeBBody<T> {
  code: number;
  message: string;
  data: T;
}

export function wrapA<T>(data: T): EnvelopeABody<T> {
  return { success: true, data };
}

export function wrapB<T>(status: number, data: T): EnvelopeBBody<T> {
  return { code: status, message: statusLine(status), data };
}

/** Builds the body a server sends for `kind` (`none` sends the data itself). */
export function wrap(kind: EnvelopeKind, status: number, data: unknown): unknown {
  if (kind === 'A') return wrapA(data);
  if (kind === 'B') return wrapB(status, data);
  return data;
}
