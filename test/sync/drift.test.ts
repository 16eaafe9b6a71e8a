import { describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { startRewritingProxy } from './proxy.js';
import { CLI_COMMON, openWarehouse, query, runSync, startWorld, tempDir } from './support.js';

describe('schema drift', () => {
  it('rejects the rows that fail their schema into ops.rejected_rows, keeps unknown fields, and goes on', async () => {
    const server: ReferenceServer = await startWorld();
    let brokenChat: string | undefined;
    const proxy = await startRewritingProxy(server.url, (path, body) => {
      const data = (body as { data?: { items?: Array<Record<string, unknown>> } }).data;
      if (/\/chats$/.test(path) && data?.items?.length) {
        for (const item of data.items) item.new_api_field = { added: 'later' };
        // One chat of the first prompt seen drifts: `mentioned` becomes a string.
        const first = data.items[0];
        if (first && (brokenChat === undefined || brokenChat === first.id)) {
          brokenChat = String(first.id);
          first.mentioned = 'yes';
        }
      }
      return body;
    });
    const tmp = tempDir();
    const wh = await openWarehouse(tmp.db);
    try {
      const result = await runSync({ ...server, url: proxy.url }, wh, { streams: ['chats'] });
      expect(result.status).toBe('partial');
      expect(result.rejectedByStream.chats).toBeGreaterThanOrEqual(1);
      const rejected = await query<{ stream: string; endpoint: string; payload: string; issues: string }>(
        wh,
        'SELECT stream, endpoint, payload, issues FROM ops.rejected_rows',
      );
      expect(rejected.length).toBe(result.counters.rejectedRows);
      expect(rejected[0]?.stream).toBe('chats');
      expect(rejected[0]?.endpoint).toBe('getPromptChats');
      expect(JSON.parse(rejected[0]?.payload ?? '{}').id).toBe(brokenChat);
      expect(JSON.parse(rejected[0]?.issues ?? '[]')[0].path).toEqual(['mentioned']);
      // The drifted chat is not landed; its siblings are, with the unknown field kept in _extra.
      const broken = await query(wh, `SELECT id FROM raw.chats WHERE id = '${brokenChat}'`);
      expect(broken).toEqual([]);
      const extras = await query<{ n: number; e: string }>(
        wh,
        "SELECT count(*) AS n, any_value(_extra->>'$.new_api_field.added') AS e FROM raw.chats",
      );
      expect(extras[0]?.n).toBeGreaterThan(50);
      expect(extras[0]?.e).toBe('later');
      const [run] = await query<{ status: string; rejected_rows: number }>(
        wh,
        'SELECT status, rejected_rows FROM ops.sync_runs',
      );
      expect(run).toEqual({ status: 'partial', rejected_rows: result.counters.rejectedRows });
      const landedFirst = await query<{ n: number }>(wh, 'SELECT count(*) AS n FROM raw.chats');
      wh.close();
      // The unit with the rejected row is not marked finished: the next sync (the CLI) asks for it again, rejects
      // the row again, says so, and exits 2 (partial).
      const stderr: string[] = [];
      const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
        stderr.push(String(chunk));
        return true;
      });
      process.env.VWH_API_KEY = server.demoApiKey ?? '';
      let code: number;
      try {
        code = await main([
          'node',
          'vwh',
          'sync',
          '--db',
          tmp.db,
          '--base-url',
          proxy.url,
          '--team',
          'team-demo',
          '--streams',
          'chats',
          ...CLI_COMMON,
        ]);
      } finally {
        spy.mockRestore();
        delete process.env.VWH_API_KEY;
      }
      expect(code).toBe(2);
      expect(stderr.join('')).toMatch(/rejected rows \(schema drift\): chats \d+; see ops.rejected_rows/);
      const again = await openWarehouse(tmp.db);
      const runs = await query<{ status: string; rejected_rows: number }>(
        again,
        'SELECT status, rejected_rows FROM ops.sync_runs ORDER BY started_at',
      );
      expect(runs.map((r) => r.status)).toEqual(['partial', 'partial']);
      expect(runs[1]?.rejected_rows).toBeGreaterThanOrEqual(1);
      // The unit asked again replaces the good rows its first landing left (ops.rejected_rows names its parent to the
      // plan): the same chats, none twice.
      const landedAgain = await query<{ n: number; ids: number }>(
        again,
        'SELECT count(*) AS n, count(DISTINCT id) AS ids FROM raw.chats',
      );
      again.close();
      expect(landedAgain).toEqual([{ n: landedFirst[0]?.n, ids: landedFirst[0]?.n }]);
    } finally {
      await proxy.close();
      await server.close();
      tmp.cleanup();
    }
  });

  it("keeps a chart value's unknown field in its metric row's _extra, and no _extra where it has none", async () => {
    const server: ReferenceServer = await startWorld();
    const proxy = await startRewritingProxy(server.url, (path, body) => {
      const data = (body as { data?: Record<string, unknown> }).data;
      if (/\/analytics$/.test(path) && data) {
        // The first provider's value of each day of the visibility chart gains a field.
        for (const values of Object.values(data.visibility_chart as Record<string, Array<Record<string, unknown>>>))
          if (values[0]) values[0].confidence = 0.9;
      }
      return body;
    });
    const tmp = tempDir();
    const wh = await openWarehouse(tmp.db);
    try {
      const result = await runSync({ ...server, url: proxy.url }, wh, { streams: ['prompt_metrics_daily'] });
      expect(result.status).toBe('succeeded');
      const rows = await query<{ metric: string; with_extra: number; without: number; confidence: string | null }>(
        wh,
        `SELECT metric, count(*) FILTER (WHERE _extra IS NOT NULL) AS with_extra,
                count(*) FILTER (WHERE _extra IS NULL) AS without, any_value(_extra->>'$.confidence') AS confidence
           FROM raw.prompt_metrics_daily GROUP BY metric ORDER BY metric`,
      );
      expect(rows.map((r) => r.metric)).toEqual(['position', 'sentiment', 'visibility']);
      const visibility = rows.find((r) => r.metric === 'visibility');
      expect(Number(visibility?.with_extra)).toBeGreaterThan(0);
      expect(Number(visibility?.without)).toBeGreaterThan(0);
      expect(visibility?.confidence).toBe('0.9');
      for (const other of rows.filter((r) => r.metric !== 'visibility')) expect(Number(other.with_extra)).toBe(0);
    } finally {
      wh.close();
      await proxy.close();
      await server.close();
      tmp.cleanup();
    }
  });
});

describe('schema drift in GET /projects', () => {
  it('lands the projects that fit, quarantines the other with its zod issue and field, and ends partial', async () => {
    const server: ReferenceServer = await startWorld({ historyDays: 3 });
    let broken: string | undefined;
    const proxy = await startRewritingProxy(server.url, (path, body) => {
      const data = (body as { data?: Array<Record<string, unknown>> }).data;
      if (/\/projects$/.test(path) && Array.isArray(data) && data[0]) {
        broken = String(data[0].id);
        data[0].name = 42;
      }
      return body;
    });
    const tmp = tempDir();
    const wh = await openWarehouse(tmp.db);
    try {
      const result = await runSync({ ...server, url: proxy.url }, wh, { streams: ['projects', 'prompts'] });
      expect(result.status).toBe('partial');
      expect(result.rejectedByStream.projects).toBe(1);
      const rejected = await query<{ stream: string; endpoint: string; payload: string; issues: string }>(
        wh,
        'SELECT stream, endpoint, payload, issues FROM ops.rejected_rows',
      );
      expect(rejected).toHaveLength(1);
      expect(rejected[0]?.stream).toBe('projects');
      expect(rejected[0]?.endpoint).toBe('listProjects');
      expect(JSON.parse(rejected[0]?.payload ?? '{}').id).toBe(broken);
      expect(JSON.parse(rejected[0]?.issues ?? '[]')[0].path).toEqual(['name']);
      const projects = await query<{ id: string }>(wh, 'SELECT DISTINCT project_id AS id FROM raw.prompts');
      expect(projects.length).toBe(1);
      expect(projects[0]?.id).not.toBe(broken);
      const [run] = await query<{ status: string; rejected_rows: number }>(
        wh,
        'SELECT status, rejected_rows FROM ops.sync_runs',
      );
      expect(run).toEqual({ status: 'partial', rejected_rows: 1 });
    } finally {
      wh.close();
      await proxy.close();
      await server.close();
      tmp.cleanup();
    }
  });
});
