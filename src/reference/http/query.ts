/**
 * The `WorldQuery` of an analytics request: the contract's `resolveDateRange` (explicit dates win over
 * `duration_days`; `date_to` defaults to the simulated today), the providers filter and the simulated now.
 */
import { DateRangeError, ERRORS, resolveDateRange } from '../../api/index.js';
import { rowError } from '../net/http-error.js';
import type { ReferenceState } from '../server/reference-state.js';
import type { WorldQuery } from '../world/types.js';

export interface RangeQuery {
  duration_days?: number;
  date_from?: string;
  date_to?: string;
  providers?: string[];
}

export function worldQuery(state: ReferenceState, query: RangeQuery): WorldQuery {
  let range: WorldQuery['range'];
  try {
    const resolved = resolveDateRange(query, state.sim.today());
    range = { from: resolved.date_from, to: resolved.date_to };
  } catch (error) {
    if (error instanceof DateRangeError) throw rowError(ERRORS.dateRangeInvalid, error.message);
    throw error;
  }
  const out: WorldQuery = { range, now: state.sim.now() };
  if (query.providers && query.providers.length > 0) out.providers = query.providers;
  return out;
}
