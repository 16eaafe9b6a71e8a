/**
 * No SSRF: the reference's own requests (bootstrap callbacks, workflow webhooks) never go to a URL with credentials
 * or to a private, loopback, link-local or metadata address, whether the URL names it or DNS resolves a name to it;
 * loopback only behind the explicit switch.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceServer } from '../../src/reference/index.js';
import { outboundDispatcher, outboundTarget, refusalOf, refusedAddress } from '../../src/reference/net/outbound.js';
import { post, start } from './support.js';

describe('outbound targets', () => {
  it('refuses credentials, private, loopback, link-local and metadata URLs; allows public HTTPS', () => {
    for (const url of [
      'https://169.254.169.254/latest/meta-data',
      'https://10.0.0.1/hook',
      'https://192.168.1.10/hook',
      'https://172.16.5.4/hook',
      'https://[::1]/hook',
      'https://[fd00:ec2::254]/hook',
      'https://[::ffff:10.0.0.1]/hook',
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'http://127.0.0.1:9/hook',
      'https://user:secret@hooks.example.com/hook',
      'http://hooks.example.com/hook',
      'ftp://hooks.example.com/hook',
    ]) {
      expect(outboundTarget(url, false), url).toHaveProperty('refused');
    }
    expect(outboundTarget('https://hooks.example.com/x', false)).toEqual({ url: 'https://hooks.example.com/x' });
    expect(outboundTarget('https://user@hooks.example.com/x', true)).toHaveProperty('refused');
  });

  it('allows loopback, over plain HTTP, only behind the switch, and nothing private even then', () => {
    expect(outboundTarget('https://127.0.0.1:9/x', true)).toEqual({ url: 'http://127.0.0.1:9/x' });
    expect(outboundTarget('http://[::1]:9/x', true)).toEqual({ url: 'http://[::1]:9/x' });
    expect(outboundTarget('https://10.0.0.1/x', true)).toHaveProperty('refused');
    expect(outboundTarget('https://169.254.169.254/x', true)).toHaveProperty('refused');
    expect(refusedAddress('8.8.8.8', false)).toBeNull();
    expect(refusedAddress('2606:4700::1111', false)).toBeNull();
    expect(refusedAddress('::ffff:127.0.0.1', false)).toMatch(/loopback/);
  });

  it('refuses a name that resolves to a loopback address at connection time (after DNS resolution)', async () => {
    // The dispatcher alone (no URL check before it): the name is only judged by what DNS answers for it.
    const error = await request('https://localhost:9/x', { dispatcher: outboundDispatcher(false) }).catch((e) => e);
    expect(refusalOf(error)).toMatch(/^localhost resolves to .*loopback/);
    // With the switch the lookup passes, and the (closed) port answers for itself.
    const open = await request('http://localhost:9/x', { dispatcher: outboundDispatcher(true) }).catch((e) => e);
    expect(refusalOf(open)).toBeNull();
  });
});

describe('registration refuses such targets', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server.close());

  it('POST /webhooks and POST /account/projects answer 400 naming why', async () => {
    for (const url of [
      'https://169.254.169.254/x',
      'https://10.0.0.1/x',
      'https://[::1]/x',
      'https://a:b@hooks.example.com/x',
    ]) {
      const reply = await post(server, '/webhooks', { url, events: ['action.completed'] });
      expect(reply.status, url).toBe(400);
      expect(reply.body.detail).toMatch(/refused/);
    }
    const project = await post(server, '/account/projects', {
      brand_name: 'Acme',
      brand_url: 'https://acme.example.com',
      webhook_url: 'http://127.0.0.1:9/callback',
    });
    expect(project.status).toBe(400);
    expect(project.body.detail).toMatch(/^webhook_url must be a valid URL: .*loopback/);
  });
});
