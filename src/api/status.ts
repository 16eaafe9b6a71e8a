/** HTTP status lines: envelope B's `message` is the status line of the response, such as `200 OK`. */
const REASONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** The reason phrase of a status (`Accepted` for 202); `Unknown` for a status the contract never uses. */
export function reasonPhrase(status: number): string {
  return REASONS[status] ?? 'Unknown';
}

/** `statusLine(202)` is `202 Accepted`. */
export function statusLine(status: number): string {
  return `${status} ${reasonPhrase(status)}`;
}
