/**
 * An error answer of the public API: a status and the exact body. Routes throw it; the app's error handler sends it.
 * Bodies come from the contract's error rows (`{detail}`, alias errors `{detail, code}`).
 */
import { type ErrorRow, errorBody } from '../../api/index.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.detail === 'string' ? body.detail : `HTTP ${status}`);
    this.name = 'ApiError';
  }
}

/** The error of one contract row; `detail` replaces the row's text where the row allows it (issues, seconds). */
export function rowError(row: ErrorRow, detail?: string, headers: Record<string, string> = {}): ApiError {
  return new ApiError(row.status, errorBody(row, detail) as Record<string, unknown>, headers);
}

/** An error the contract has no row for (decided by the server; listed in docs/reference-decisions.md). */
export function fail(status: number, detail: string): ApiError {
  return new ApiError(status, { detail });
}
