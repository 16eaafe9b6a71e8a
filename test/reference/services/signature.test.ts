/** The delivery signature and the delivery URL rules (pure functions; the HTTP side is in workflows.test.ts). */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { outboundTarget as targetUrl } from '../../../src/reference/net/outbound.js';
import { sign, verifySignature } from '../../../src/reference/services/index.js';
import { defaultServicesOptions } from '../../../src/reference/state/services-options.js';

describe('X-Webhook-Signature', () => {
  const secret = 'whsec_test';
  const body = '{"event":"action.completed","data":{"x":1}}';

  it('is the hex HMAC-SHA256 of the exact raw body', () => {
    expect(sign(secret, body)).toBe(createHmac('sha256', secret).update(body).digest('hex'));
  });

  it('verifies the right signature and rejects everything else', () => {
    const good = sign(secret, body);
    expect(verifySignature(secret, body, good)).toBe(true);
    expect(verifySignature(secret, Buffer.from(body), good.toUpperCase())).toBe(true);
    expect(verifySignature(secret, `${body} `, good)).toBe(false);
    expect(verifySignature('whsec_other', body, good)).toBe(false);
    expect(verifySignature(secret, body, undefined)).toBe(false);
    expect(verifySignature(secret, body, '')).toBe(false);
    expect(verifySignature(secret, body, good.slice(0, 63))).toBe(false);
    expect(verifySignature(secret, body, `${good}00`)).toBe(false);
    expect(verifySignature(secret, body, `z${good.slice(1)}`)).toBe(false);
  });
});

describe('delivery URL', () => {
  it('delivers plain HTTP only to loopback hosts, and only behind the flag', () => {
    expect(targetUrl('https://hooks.example.com/x', false)).toEqual({ url: 'https://hooks.example.com/x' });
    expect(targetUrl('http://127.0.0.1:9/x', false)).toHaveProperty('refused');
    expect(targetUrl('http://127.0.0.1:9/x', true)).toEqual({ url: 'http://127.0.0.1:9/x' });
    expect(targetUrl('https://127.0.0.1:9/x', true)).toEqual({ url: 'http://127.0.0.1:9/x' });
    expect(targetUrl('http://hooks.example.com/x', true)).toHaveProperty('refused');
    expect(targetUrl('not a url', true)).toHaveProperty('refused');
  });
});

describe('delivery defaults', () => {
  it('waits 10 s for an answer, retries 3 times after 2, 4 and 8 s, and allows plain HTTP only when asked', () => {
    expect(defaultServicesOptions({})).toEqual({
      allowHttpLoopback: false,
      deliveryTimeoutMs: 10_000,
      retryBackoffMs: [2_000, 4_000, 8_000],
      maxConcurrentTasks: 5,
    });
    expect(defaultServicesOptions({ VWH_REFERENCE_ALLOW_HTTP_WEBHOOKS: '1' }).allowHttpLoopback).toBe(true);
    expect(defaultServicesOptions({ VWH_REFERENCE_ALLOW_HTTP_WEBHOOKS: 'yes' }).allowHttpLoopback).toBe(false);
  });
});
