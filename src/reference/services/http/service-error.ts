/**
 * The error answer of the second-document services and of the workflow extension: a status and the exact body.
 * Content errors are `{error: {code, message, details?}}`; bootstrap, team and workflow errors are `{detail}`.
 */
import { CONTENT_ERROR_STATUS, type ContentErrorCode, type ErrorRow, errorBody } from '../../../api/index.js';

export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(`HTTP ${status}`);
    this.name = 'ServiceError';
  }
}

/** The error of one contract row; `detail` replaces the row's text (issue lists). */
export function rowFail(row: ErrorRow, detail?: string): ServiceError {
  return new ServiceError(row.status, errorBody(row, detail) as Record<string, unknown>);
}

/** A `{detail}` error the contract has no row for (decided here; docs/reference-decisions.md). */
export function detailFail(status: number, detail: string): ServiceError {
  return new ServiceError(status, { detail });
}

/** A content-service error with its decided status (`CONTENT_ERROR_STATUS`). */
export function contentFail(code: ContentErrorCode, message: string, details?: unknown): ServiceError {
  const error: Record<string, unknown> = { code, message };
  if (details !== undefined) error.details = details;
  return new ServiceError(CONTENT_ERROR_STATUS[code], { error });
}
