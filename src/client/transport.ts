/**
 * The seam between the client and the network: one HTTP exchange, no retries, no budget, no parsing. Production
 * and tests both use `UndiciTransport` (tests point it at a `node:http` server on port 0); anything else that can
 * answer `request` (a recording proxy, another HTTP stack) plugs in here.
 */
export interface TransportRequest {
  method: string;
  /** Absolute URL, query string included. */
  url: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Limit for the whole exchange (connect, headers and body); the transport fails with kind `timeout`. */
  timeoutMs?: number;
  /** Largest body read; beyond it the transport stops reading and fails with kind `too-large`. */
  maxBytes?: number;
}

export interface TransportResponse {
  status: number;
  /** Lower-case header names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  text: string;
}

export interface Transport {
  request(request: TransportRequest): Promise<TransportResponse>;
  /** Closes pooled connections. */
  close(): Promise<void>;
}

/**
 * What went wrong below HTTP. Every kind except `aborted`, `invalid` and `too-large` is worth a retry (the same
 * request would answer the same oversized body).
 */
export type TransportErrorKind =
  | 'timeout'
  | 'reset'
  | 'connect'
  | 'truncated'
  | 'aborted'
  | 'invalid'
  | 'too-large'
  | 'other';

/**
 * A failed exchange (no complete HTTP response). `message` names the kind, the method and the URL's path; never a
 * header, so never the key.
 */
export class TransportError extends Error {
  readonly kind: TransportErrorKind;
  /** The underlying library code (`UND_ERR_SOCKET`, `ECONNRESET`...), when there is one. */
  readonly sourceCode: string | undefined;

  constructor(kind: TransportErrorKind, message: string, options: { cause?: unknown; sourceCode?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TransportError';
    this.kind = kind;
    this.sourceCode = options.sourceCode;
  }

  get retryable(): boolean {
    return this.kind !== 'aborted' && this.kind !== 'invalid' && this.kind !== 'too-large';
  }
}
