/** The HTTP client of the brand-visibility API: see docs/client.md. */
export {
  ApiClient,
  type ApiClientOptions,
  type BackoffOptions,
  type CallDrift,
  type CallOk,
  type CallParams,
  type CallResult,
  type ClientStats,
  type RawRequest,
  type RawResponse,
} from './api-client.js';
export { type BudgetStore, keyIdFor, MemoryBudgetStore } from './budget-store.js';
export { decodeEnvelope } from './envelope.js';
export { hasNextPage, type PageRead, pageQuery, paginatedParts } from './paging.js';
export {
  type Permit,
  RateBudget,
  type RateBudgetOptions,
  type RateBudgetStats,
  type RateTier,
  TIER_LIMITS,
} from './rate-budget.js';
export { retryAfterMs } from './retry-after.js';
export { type Transport, TransportError, type TransportRequest, type TransportResponse } from './transport.js';
export { UndiciTransport, type UndiciTransportOptions } from './undici-transport.js';
export type { WaitEvent, WaitListener, WaitReason } from './wait-events.js';
