/**
 * The one error answer of the reference server, for the public API, the second document's services, the workflow
 * extension and the control plane: a status, the exact body and extra headers. Routes and stores throw it; `onError`
 * (every Hono app of the server) sends it. Bodies come from the contract's error rows (`{detail}`, alias errors
 * `{detail, code}`, content errors `{error: {code, message, details?}}`) or are decided here (`fail`).
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { CONTENT_ERROR_STATUS, type ContentErrorCode, type ErrorRow, errorBody } from '../../api/index.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.detail === 'string' ? body.detail : `HTTP ${status}`);
    this.name = 'HttpError';
  }
}

/** The error of one contract row; `detail` replaces the row's text where the row allows it (issues, seconds). */
export function rowError(row: ErrorRow, detail?: string, headers: Record<string, string> = {}): HttpError {
  return new HttpError(row.status, errorBody(row, detail) as Record<string, unknown>, headers);
}

/** A `{detail}` error the contract has no row for (decided by the server; listed in docs/reference-decisions.md). */
export function fail(status: number, detail: string): HttpError {
  return new HttpError(status, { detail });
}

/** A content-service error with its decided status (`CONTENT_ERROR_STATUS`). */
export function contentFail(code: ContentErrorCode, message: string, details?: unknown): HttpError {
  const error: Record<string, unknown> = { code, message };
  if (details !== undefined) error.details = details;
  return new HttpError(CONTENT_ERROR_STATUS[code], { error });
}

/** The error handler of every app: an `HttpError` is its answer; anything else is a logged 500. */
export function onError(error: Error, c: Context): Response {
  if (error instanceof HttpError) {
    for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
    return c.json(error.body, error.status as ContentfulStatusCode);
  }
  process.stderr.write(`reference server: unexpected error on ${c.req.method} ${c.req.path}: ${String(error)}\n`);
  return c.json({ detail: 'Internal server error' }, 500);
}
