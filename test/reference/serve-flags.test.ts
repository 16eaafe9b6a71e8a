/**
 * `vwh serve` flags as the command line parses them (commander, not a hand-built options object), each shown to
 * reach the running server over HTTP: host, port 0, seed, today, demo and its key line, history days, projects,
 * prompts, the rate window, the late fraction and faults.
 */
import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, runServe, type ServeFlags } from '../../src/cli/commands/serve.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { call, type Json } from './support.js';

/** Parses `args` with the real `serve` command, capturing the flags its action receives. */
async function parseServe(args: string[]): Promise<ServeFlags> {
  const program = new Command().exitOverride();
  register(program);
  const serve = program.commands.find((c) => c.name() === 'serve');
  if (!serve) throw new Error('no serve command');
  let flags: ServeFlags | undefined;
  serve.action((parsed: ServeFlags) => {
    flags = parsed;
  });
  await program.parseAsync(['node', 'vwh', 'serve', ...args]);
  if (!flags) throw new Error('serve action not called');
  return flags;
}

describe('vwh serve flags, end to end', () => {
  let server: ReferenceServer;
  let printed = '';
  const controller = new AbortController();
  const today = '2026-05-20';

  beforeAll(async () => {
    const flags = await parseServe([
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--seed',
      '11',
      '--today',
      today,
      '--demo',
      '--history-days',
      '4',
      '--projects',
      '2',
      '--prompts',
      '3',
      '--rate-window-ms',
      '20000',
      '--late-fraction',
      '1',
      '--faults',
      '5xx=1:502@/webhooks',
    ]);
    const out = new PassThrough();
    out.on('data', (chunk) => {
      printed += chunk;
    });
    server = await runServe(flags, out, controller.signal);
  });
  afterAll(async () => {
    controller.abort();
    await server.close().catch(() => undefined);
  });

  const get = (path: string, key?: string | null) => call(server, 'GET', path, { key });

  it('prints the listening line with the real port, and the demo key line', () => {
    const [listening, demo] = printed.split('\n');
    expect(listening).toBe(`listening on http://127.0.0.1:${server.port}`);
    expect(server.port).toBeGreaterThan(0);
    expect(demo).toBe(`demo api key: ${server.demoApiKey}`);
  });

  it('honours --today, --seed, --projects and --prompts', async () => {
    const clock = (await get('/_reference/clock')).body;
    expect(clock.today).toBe(today);
    expect(clock.now.startsWith(`${today}T06:0`)).toBe(true);
    expect(server.state.options.seed).toBe(11);
    const projects = (await get('/projects')).body.data as Json[];
    expect(projects).toHaveLength(2);
    for (const project of projects) {
      const prompts = (await get(`/projects/${project.id}/prompts`)).body.data.prompts as Json[];
      expect(prompts.filter((x) => x.prompt_type === 'active')).toHaveLength(3);
    }
  });

  it('honours --history-days and --late-fraction 1 (today is still out: every answer of it arrives late)', async () => {
    const project = (await get('/projects')).body.data[0].id;
    const prompt = (await get(`/projects/${project}/prompts`)).body.data.prompts[0].id;
    const chats = (await get(`/projects/${project}/prompts/${prompt}/chats?duration_days=30`)).body.data
      .items as Json[];
    const days = [...new Set(chats.map((c) => (c.date as string).slice(0, 10)))].sort();
    // The 4-day window starts 2026-05-16; the demo prompts exist from a week before it (created 05-09 09:00, first
    // answered 05-10), so that the window's first days have a baseline. Day 05-20's answers all arrive late.
    expect(days[0]).toBe('2026-05-10');
    expect(days.at(-1)).toBe('2026-05-19');
    expect(days).toHaveLength(10);
    await call(server, 'POST', '/_reference/clock', { body: { advance_days: 1 } });
    const later = (await get(`/projects/${project}/prompts/${prompt}/chats?date_from=2026-05-20&date_to=2026-05-20`))
      .body.data.items as Json[];
    expect(later.length).toBe(3);
  });

  it('honours --faults on the targeted path only', async () => {
    expect((await get('/webhooks')).status).toBe(502);
    expect((await get('/projects')).status).toBe(200);
  });

  it('honours --rate-window-ms in the Retry-After of a 429', async () => {
    let reply = await get('/projects');
    for (let i = 0; i < 80 && reply.status !== 429; i++) reply = await get('/projects');
    expect(reply.status).toBe(429);
    // A 20 s window (wide enough for a loaded machine to send 70 requests inside it) waits at most 20 s, not 60.
    const seconds = Number(reply.headers['retry-after']);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(20);
    expect(reply.body.detail).toBe(`Rate limit exceeded. Retry after ${seconds} seconds.`);
  });

  it('lists every flag of the issue in --help', () => {
    const program = new Command();
    register(program);
    const help = program.commands.find((c) => c.name() === 'serve')?.helpInformation() ?? '';
    for (const flag of [
      '--host',
      '--port',
      '--seed',
      '--today',
      '--demo',
      '--history-days',
      '--projects',
      '--prompts',
      '--rate-window-ms',
      '--late-fraction',
      '--faults',
    ]) {
      expect(help).toContain(flag);
    }
  });

  it('turns on plain-http loopback webhook delivery only with --allow-http-webhooks', async () => {
    const off = new AbortController();
    const plain = await runServe(await parseServe(['--port', '0']), new PassThrough(), off.signal);
    const on = new AbortController();
    const allowed = await runServe(
      await parseServe(['--port', '0', '--allow-http-webhooks']),
      new PassThrough(),
      on.signal,
    );
    try {
      expect(plain.state.servicesOptions.allowHttpLoopback).toBe(false);
      expect(allowed.state.servicesOptions.allowHttpLoopback).toBe(true);
    } finally {
      off.abort();
      on.abort();
      await Promise.all([plain.close(), allowed.close()].map((p) => p.catch(() => undefined)));
    }
  });
});
