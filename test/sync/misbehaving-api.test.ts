/**
 * An API that breaks its contract, reproduced with the reference's faults over HTTP (issue 55, items 2, 3 and 8):
 * pages that go round, a `null` body, duplicate ids. The broken unit stops and says which stream and path, whatever
 * was landed before stays, and the run ends partial.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { catalogue } from '../../src/api/index.js';
import { main } from '../../src/cli/main.js';
import { addDays } from '../../src/core/days.js';
import { createLogger, type Logger, silentLogger } from '../../src/core/log.js';
import { control, type ReferenceServer } from '../../src/reference/index.js';
import { defineStream } from '../../src/sync/declare.js';
import { sourcesRequest } from '../../src/sync/streams/sources.js';
import type { UnitContext } from '../../src/sync/types.js';
import { TODAY } from '../fixtures.js';
import {
  CLI_COMMON,
  contentOf,
  openWarehouse,
  query,
  runSync,
  settings,
  startWorld,
  tempDir,
  truthClient,
} from './support.js';

let server: ReferenceServer;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  server = await startWorld();
  tmp = tempDir();
});
afterAll(async () => {
  control.setFaults(server.state, null);
  await server.close();
  tmp.cleanup();
});

/** A JSON logger whose warnings the test reads. */
function recordingLogger(): { logger: Logger; warnings: () => Array<{ msg: string; [field: string]: unknown }> } {
  const stream = new PassThrough();
  const lines: string[] = [];
  stream.on('data', (chunk) => lines.push(...String(chunk).split('\n').filter(Boolean)));
  return {
    logger: createLogger({ format: 'json', level: 'warn', stream }),
    warnings: () => lines.map((l) => JSON.parse(l)).filter((l) => l.level === 'warn'),
  };
}

const SOURCE_STREAMS = ['sources', 'source_analytics', 'source_details', 'source_chats'];

describe('pages that go round', () => {
  it('a page past the first answered as the first stops its unit (API_CONTRACT), keeps its rows, ends partial', async () => {
    const wh = await openWarehouse(`${tmp.dir}/repeat.duckdb`);
    try {
      expect((await runSync(server, wh, { streams: SOURCE_STREAMS })).status).toBe('succeeded');
      const before = await contentOf(wh);
      expect(before.source_chats?.length).toBeGreaterThan(0);

      control.setFaults(server.state, 'repeat=1@/projects/*/sources/*/chats');
      const refresh = await runSync(server, wh, { streams: SOURCE_STREAMS, fullRefresh: true });
      control.setFaults(server.state, null);
      expect(refresh.status).toBe('partial');
      expect(refresh.failedUnits.length).toBeGreaterThan(0);
      for (const failed of refresh.failedUnits) {
        expect(failed.unit).toMatch(/^source_chats:/);
        expect(failed.code).toBe('API_CONTRACT');
        expect(failed.error).toMatch(
          /^stream source_chats: page 2 of GET \/projects\/[0-9a-f-]+\/sources\/[^/]+\/chats was answered as page 1: the API pages without end/,
        );
      }
      // Every other stream landed again; the stopped units' rows are those of the sync before.
      expect(refresh.counters.rowsPerStream.sources).toBe(before.sources?.length);
      expect(await contentOf(wh)).toEqual(before);
      const [run] = await query<{ status: string; error_code: string }>(
        wh,
        'SELECT status, error_code FROM ops.sync_runs ORDER BY started_at DESC LIMIT 1',
      );
      expect(run).toEqual({ status: 'partial', error_code: 'API_CONTRACT' });
    } finally {
      wh.close();
    }

    // The CLI: exit 2 (partial), the unit named with its stream, path and code.
    control.setFaults(server.state, 'repeat=1@/projects/*/sources/*/chats');
    const { code, stderr } = await cliSync(`${tmp.dir}/repeat.duckdb`, ['--streams', 'source_chats', '--full-refresh']);
    control.setFaults(server.state, null);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /unit source_chats:\S+ failed: stream source_chats: page 2 of GET \/projects\/\S+\/chats was answered as page 1: .*\[API_CONTRACT\]/,
    );
  });

  it('a page-until-empty list whose next page holds only ids already read stops after that page', async () => {
    // The sources stream's request with 5 a page, so that the small world's sources fill several pages.
    const stream = defineStream({
      name: 'sources',
      grain: 'snapshot',
      parents: () => [],
      requests: [sourcesRequest(5)],
    });
    const client = truthClient(server);
    const projects = await client.call(catalogue.listProjects);
    if (!projects.ok) throw new Error('projects drifted');
    const projectId = projects.data[0]?.id ?? '';
    const ctx = {
      client,
      teamId: 'team-demo',
      scope: {},
      settings: settings(),
      window: { from: addDays(TODAY, -6), to: TODAY },
      logger: silentLogger,
    } as unknown as UnitContext;
    const parent = { id: projectId };
    const day = { from: TODAY, to: TODAY };

    const whole = await stream.fetch(ctx, parent, day);
    const all = whole.loads[0]?.rows ?? [];
    expect(all.length).toBeGreaterThan(10);
    expect(new Set(all.map((r) => r.source_id)).size).toBe(all.length);

    control.setFaults(server.state, 'repeat=1@/projects/*/sources');
    const asked = client.stats().requests;
    try {
      await expect(stream.fetch(ctx, parent, day)).rejects.toMatchObject({
        code: 'API_CONTRACT',
        exitCode: 2,
        message: expect.stringMatching(
          new RegExp(
            `^stream sources: page 2 of GET /projects/${projectId}/sources holds only ids earlier pages held \\(5 of 5\\)`,
          ),
        ),
      });
    } finally {
      control.setFaults(server.state, null);
    }
    // Two pages asked, not 10,000.
    expect(client.stats().requests - asked).toBe(2);
  });
});

describe('a body that breaks the contract', () => {
  it('a null body for the chats keeps the chats landed for the days it would replace; the unit is asked again', async () => {
    const wh = await openWarehouse(`${tmp.dir}/null.duckdb`);
    const clean = await openWarehouse(`${tmp.dir}/null-clean.duckdb`);
    const tomorrow = addDays(TODAY, 1);
    try {
      expect((await runSync(server, wh, { streams: ['chats'] })).status).toBe('succeeded');
      expect((await runSync(server, clean, { streams: ['chats'] })).status).toBe('succeeded');
      const perDay = 'SELECT chat_date::VARCHAR AS day, count(*) AS n FROM raw.chats GROUP BY 1 ORDER BY 1';
      const before = await query<{ day: string; n: number }>(wh, perDay);
      expect(before.filter((d) => d.day >= addDays(TODAY, -2)).length).toBe(3);

      control.advanceClock(server.state, { days: 1 });
      const { logger, warnings } = recordingLogger();
      control.setFaults(server.state, 'null=1@/projects/*/prompts/*/chats');
      const night = await runSync(server, wh, { streams: ['chats'], settings: settings(tomorrow), logger });
      control.setFaults(server.state, null);
      expect(night.status).toBe('partial');
      expect(night.counters.unitsDone).toBeGreaterThan(0);
      expect(night.counters.rowsPerStream.chats ?? 0).toBe(0);
      // Every re-fetched day keeps its answers.
      expect(await query(wh, perDay)).toEqual(before);
      const rejected = await query<{ stream: string; payload: string }>(
        wh,
        'SELECT DISTINCT stream, payload FROM ops.rejected_rows',
      );
      expect(rejected).toEqual([{ stream: 'chats', payload: 'null' }]);
      expect(warnings().some((w) => w.msg.includes('breaks its contract') && w.stream === 'chats')).toBe(true);

      // The API mended, the next night asks the same units again and ends as a clean warehouse does.
      const mended = await runSync(server, wh, { streams: ['chats'], settings: settings(tomorrow) });
      expect(mended.status).toBe('succeeded');
      expect((await runSync(server, clean, { streams: ['chats'], settings: settings(tomorrow) })).status).toBe(
        'succeeded',
      );
      expect(await contentOf(wh)).toEqual(await contentOf(clean));
    } finally {
      wh.close();
      clean.close();
    }
  });
});

describe('duplicate ids', () => {
  it('a chat listed twice lands once, with a warning naming the stream and how many', async () => {
    const dupes = await startWorld();
    const clean = await openWarehouse(`${tmp.dir}/dupes-clean.duckdb`);
    const wh = await openWarehouse(`${tmp.dir}/dupes.duckdb`);
    try {
      expect((await runSync(dupes, clean, { streams: ['chats'] })).status).toBe('succeeded');
      control.setFaults(dupes.state, 'dupes=1@/projects/*/prompts/*/chats');
      const { logger, warnings } = recordingLogger();
      const result = await runSync(dupes, wh, { streams: ['chats'], logger });
      expect(result.status).toBe('succeeded');
      const [chats] = await query<{ n: number; ids: number }>(
        wh,
        'SELECT count(*) AS n, count(DISTINCT id) AS ids FROM raw.chats',
      );
      expect(chats?.n).toBe(chats?.ids);
      expect(await contentOf(wh)).toEqual(await contentOf(clean));
      const said = warnings().filter((w) => w.msg.includes('same ids more than once'));
      expect(said.length).toBe(result.counters.unitsDone);
      expect(said.every((w) => w.stream === 'chats' && w.duplicates === 1)).toBe(true);
    } finally {
      wh.close();
      clean.close();
      await dupes.close();
    }
  });
});

/** `vwh sync` in process (main), its exit code and what it wrote to stderr. */
async function cliSync(db: string, extra: string[]): Promise<{ code: number; stderr: string }> {
  const stderr: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
  process.env.VWH_API_KEY = server.demoApiKey ?? '';
  try {
    const code = await main([
      'node',
      'vwh',
      'sync',
      '--db',
      db,
      '--base-url',
      server.url,
      '--team',
      'team-demo',
      '--top-domains',
      '2',
      '--window-days',
      '7',
      ...extra,
      ...CLI_COMMON,
    ]);
    return { code, stderr: stderr.join('') };
  } finally {
    spy.mockRestore();
    delete process.env.VWH_API_KEY;
  }
}
