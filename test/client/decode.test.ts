import { describe, expect, it } from 'vitest';
import { decodeEnvelope } from '../../src/client/envelope.js';
import { isRateLimit, readErrorBody } from '../../src/client/http-errors.js';
import { retryAfterMs } from '../../src/client/retry-after.js';

describe('decodeEnvelope', () => {
  it('A: data when success is true, an issue otherwise', () => {
    expect(decodeEnvelope('A', { success: true, data: [1] })).toEqual({ ok: true, data: [1] });
    expect(decodeEnvelope('A', { success: true, data: null })).toEqual({ ok: true, data: null });
    expect(decodeEnvelope('A', { success: 'yes', data: [] }).ok).toBe(false);
    expect(decodeEnvelope('A', { success: true }).ok).toBe(false);
    expect(decodeEnvelope('A', [1, 2]).ok).toBe(false);
    expect(decodeEnvelope('A', undefined).ok).toBe(false);
  });

  it('B: needs an integer code and a string message', () => {
    expect(decodeEnvelope('B', { code: 202, message: '202 Accepted', data: { id: 1 } })).toEqual({
      ok: true,
      data: { id: 1 },
    });
    expect(decodeEnvelope('B', { code: '200', message: '200 OK', data: {} }).ok).toBe(false);
    expect(decodeEnvelope('B', { code: 200, data: {} }).ok).toBe(false);
  });

  it('none: the body is the data', () => {
    expect(decodeEnvelope('none', { task_id: 't' })).toEqual({ ok: true, data: { task_id: 't' } });
  });
});

describe('retryAfterMs', () => {
  const now = Date.UTC(2026, 0, 1);
  it('reads seconds, fractions, HTTP dates and the detail text', () => {
    expect(retryAfterMs('30', undefined, now)).toBe(30_000);
    expect(retryAfterMs('0.25', undefined, now)).toBe(250);
    expect(retryAfterMs(new Date(now + 5_000).toUTCString(), undefined, now)).toBe(5_000);
    expect(retryAfterMs(undefined, 'Rate limit exceeded. Retry after 12 seconds.', now)).toBe(12_000);
    expect(retryAfterMs('soon', undefined, now)).toBeUndefined();
    expect(retryAfterMs(undefined, undefined, now)).toBeUndefined();
  });
});

describe('error bodies', () => {
  it('finds the explanation in every error shape of the specs', () => {
    expect(readErrorBody('{"detail":"Project not found"}')).toEqual({
      detail: 'Project not found',
      apiCode: undefined,
    });
    expect(readErrorBody('{"detail":"Alias not found","code":"ALIAS_NOT_FOUND"}')).toEqual({
      detail: 'Alias not found',
      apiCode: 'ALIAS_NOT_FOUND',
    });
    expect(readErrorBody('{"error":{"code":"TASK_NOT_FOUND","message":"Task not found"}}')).toEqual({
      detail: 'Task not found',
      apiCode: 'TASK_NOT_FOUND',
    });
    expect(readErrorBody('<html>Bad Gateway</html>').detail).toBe('<html>Bad Gateway</html>');
    expect(readErrorBody('').detail).toBeUndefined();
  });

  it('tells the rate limiter from quota 429s', () => {
    expect(isRateLimit(429, { 'retry-after': '3' }, undefined)).toBe(true);
    expect(isRateLimit(429, {}, 'Rate limit exceeded. Retry after 3 seconds.')).toBe(true);
    expect(isRateLimit(429, {}, 'Alias limit (20) reached')).toBe(false);
    expect(isRateLimit(503, { 'retry-after': '3' }, undefined)).toBe(false);
  });
});
