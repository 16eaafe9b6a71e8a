/** The API client of one team's sync: its key's rate budget, loaded from the warehouse, and the client over it. */
import { ApiClient } from '../client/api-client.js';
import { type BudgetStore, keyIdFor } from '../client/budget-store.js';
import { RateBudget } from '../client/rate-budget.js';
import type { Clock } from '../core/clock.js';
import type { TeamSyncOptions } from './types.js';

export async function openTeamClient(
  options: TeamSyncOptions,
  store: BudgetStore,
  clock: Clock,
): Promise<{ budget: RateBudget; client: ApiClient }> {
  const { teamId, logger } = options;
  const keyId = keyIdFor(options.apiKey);
  const budget = await RateBudget.load({
    store,
    keyId,
    clock,
    windowMs: options.rate?.windowMs,
    limit: options.rate?.limit,
    share: options.rate?.share,
  });
  const client = new ApiClient({
    baseUrl: options.baseUrl,
    serviceBaseUrls: options.servicesBaseUrl
      ? { content: options.servicesBaseUrl, bootstrap: options.servicesBaseUrl, teams: options.servicesBaseUrl }
      : undefined,
    apiKey: options.apiKey,
    budget,
    clock,
    concurrency: options.concurrency ?? 4,
    logger: logger.child({ team: teamId }),
    retries: options.retries,
    backoff: options.backoff,
    timeoutMs: options.timeoutMs,
    maxRetryAfterMs: options.maxRetryAfterMs,
    maxResponseBytes: options.maxResponseBytes,
    transport: options.transport,
  });
  return { budget, client };
}
