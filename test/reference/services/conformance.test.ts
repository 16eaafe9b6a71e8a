/**
 * Conformance of the services (content, bootstrap, teams) to the contract, over real HTTP, driven by the catalogue:
 * every endpoint answers its success case with its status and served schema, and every error row its entry
 * declares is provoked once, with its status, body shape, code and text. The tables cannot rot: the first test fails
 * when the catalogue gains a services endpoint or a row without a case. The server is reset before each case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EndpointId, ERRORS, type ErrorName, endpoint } from '../../../src/api/index.js';
import {
  type Case,
  DECLARED,
  ERROR_CASES,
  expectRow,
  NOT_PRODUCED,
  SERVICES,
  STEP_S,
  SUCCESS,
  servicesContext,
} from './conformance-cases.js';
import { expectServed, type Harness, startHarness } from './support.js';

describe('services conformance tables', () => {
  it('have a success case for every services endpoint, a case for every declared row, and nothing stale', () => {
    expect(SERVICES.length).toBe(18);
    const ids = SERVICES.map((def) => def.id);
    expect(ids.filter((id) => !SUCCESS[id])).toEqual([]);
    expect(Object.keys(SUCCESS).filter((id) => !ids.includes(id))).toEqual([]);
    expect(DECLARED.filter((key) => !ERROR_CASES[key] && !NOT_PRODUCED[key])).toEqual([]);
    expect(Object.keys(ERROR_CASES).filter((key) => !DECLARED.includes(key))).toEqual([]);
    expect(Object.keys(NOT_PRODUCED).filter((key) => !DECLARED.includes(key) || ERROR_CASES[key])).toEqual([]);
  });
});

describe('services conformance over HTTP', () => {
  let h: Harness;
  let ctx: ReturnType<typeof servicesContext>;
  beforeAll(async () => {
    h = await startHarness({ backgroundDelayMs: STEP_S * 1000 });
    ctx = servicesContext(h);
  });
  afterAll(() => h.close());

  const reset = () => ctx.reset();

  it.each(SERVICES.map((def) => def.id))('%s answers its success case', async (id) => {
    await reset();
    const run = SUCCESS[id] as Case;
    expectServed(id as EndpointId, await run(ctx));
  });

  it.each(Object.keys(ERROR_CASES))('%s', async (key) => {
    await reset();
    const run = ERROR_CASES[key] as Case;
    const def = endpoint(key.split(':')[0] as EndpointId);
    expect(def.errors).toContain(ERRORS[key.split(':')[1] as ErrorName]);
    expectRow(key, await run(ctx));
  });
});
