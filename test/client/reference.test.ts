/**
 * The client against the project's reference server (src/reference) on port 0: the contract parses what the
 * reference serves, the budget keeps a scaled window without a 429, faults are retried, a bad key stops at once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { catalogue } from '../../src/api/catalogue.js';
import { ApiClient } from '../../src/client/api-client.js';
import { RateBudget } from '../../src/client/rate-budget.js';
import { ExitCode } from '../../src/core/errors.js';
import { type ReferenceServer, startReferenceServer } from '../../src/reference/index.js';

const WINDOW = 500;
let ref: ReferenceServer | undefined;
let client: ApiClient | undefined;
afterEach(async () => {
  await client?.close();
  await ref?.close();
  client = undefined;
  ref = undefined;
});

async function setup(faults: string | null = null) {
  ref = await startReferenceServer({
    demo: true,
    projects: 1,
    prompts: 2,
    historyDays: 3,
    rateWindowMs: WINDOW,
    faults,
  });
  const apiKey = ref.demoApiKey;
  if (!apiKey) throw new Error('the demo team has no key');
  client = new ApiClient({
    baseUrl: ref.url,
    apiKey,
    budget: new RateBudget({ windowMs: WINDOW }),
    backoff: { minMs: 5, maxMs: 50 },
  });
  return { ref, client, apiKey };
}

describe('ApiClient against the reference server', () => {
  it('parses what the reference serves and keeps a scaled window without a 429', async () => {
    const { client } = await setup();
    const projects = await client.call(catalogue.listProjects);
    expect(projects.issues).toEqual([]);
    const project = projects.data?.[0];
    expect(project).toBeDefined();
    // 150 calls at 70 per 500 ms: more than two windows.
    const results = await Promise.all(
      Array.from({ length: 150 }, () =>
        client.call(catalogue.listPrompts, { path: { project_id: project?.id ?? '' } }),
      ),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    expect(client.stats()).toMatchObject({ rateLimited: 0, requests: 151, phantoms: 0 });
    expect(client.budget.limit).toBe(70);
  });

  it('retries the reference server’s injected faults through to success', async () => {
    const { client } = await setup('5xx=0.2,reset=0.1,truncate=0.1');
    const results = await Promise.all(Array.from({ length: 30 }, () => client.call(catalogue.listProjects)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(client.stats().retries).toBeGreaterThan(0);
  });

  it('an unknown key stops with AUTH_INVALID_KEY and exit code 3, without the key in the error', async () => {
    const { ref } = await setup();
    const bad = new ApiClient({ baseUrl: ref.url, apiKey: 'vwh_live_not_a_real_key_0000000000' });
    try {
      const error = await bad.call(catalogue.listProjects).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'AUTH_INVALID_KEY', exitCode: ExitCode.auth });
      expect(JSON.stringify(error) + String(error)).not.toContain('not_a_real_key');
    } finally {
      await bad.close();
    }
  });
});
