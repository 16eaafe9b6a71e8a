import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogue } from '../../src/api/index.js';
import { addDays } from '../../src/core/days.js';
import { control, type ReferenceServer } from '../../src/reference/index.js';
import { mentionRows } from '../../src/sync/streams/chats.js';
import type { Warehouse } from '../../src/warehouse/warehouse.js';
import { TODAY } from '../fixtures.js';
import { contentOf, openWarehouse, query, runSync, settings, startWorld, tempDir, truthClient } from './support.js';

let server: ReferenceServer;
let tmp: ReturnType<typeof tempDir>;
let wh: Warehouse;

beforeAll(async () => {
  server = await startWorld();
  tmp = tempDir();
  wh = await openWarehouse(tmp.db);
});
afterAll(async () => {
  wh.close();
  await server.close();
  tmp.cleanup();
});

async function apiTruth(today: string) {
  const client = truthClient(server);
  const yesterday = today;
  const projects = await client.call(catalogue.listProjects);
  if (!projects.ok) throw new Error('projects drifted');
  const truth = {
    projects: projects.data.map((p) => p.id).sort(),
    aliases: 0,
    prompts: [] as string[],
    chats: [] as string[],
    mentions: 0,
    references: 0,
    metrics: 0,
    competitorsActive: 0,
    competitorsPending: 0,
    visibility: 0,
    sources: 0,
    promptDomains: 0,
    promptUrls: 0,
    overview: 0,
    sourceStats: 0,
    sourceShareDaily: 0,
    sourceTopDomains: 0,
    sourceOpportunities: 0,
    actions: [] as string[],
    recordedUrls: 0,
    webhooks: [] as string[],
  };
  const window = { date_from: addDays(yesterday, -6), date_to: yesterday };
  for (const project of projects.data) {
    const path = { project_id: project.id };
    const prompts = await client.call(catalogue.listPrompts, { path });
    if (!prompts.ok) throw new Error('prompts drifted');
    truth.prompts.push(...prompts.data.prompts.map((p) => p.id));
    const aliases = await client.call(catalogue.listAliases, { path });
    if (aliases.ok) truth.aliases += aliases.data.aliases.length;
    const start = [project.created_at, ...prompts.data.prompts.map((p) => p.created_at)].sort()[0]?.slice(0, 10) ?? '';
    for (const prompt of prompts.data.prompts.filter((p) => ['active', 'inactive'].includes(p.prompt_type))) {
      const q = { date_from: prompt.created_at.slice(0, 10), date_to: yesterday };
      const promptPath = { ...path, prompt_id: prompt.id };
      const domains = await client.call(catalogue.getPromptDomains, { path: promptPath, query: window });
      if (domains.ok) truth.promptDomains += domains.data.items.length;
      const urls = await client.call(catalogue.getPromptUrls, { path: promptPath, query: window });
      if (urls.ok) truth.promptUrls += urls.data.items.length;
      const chats = await client.call(catalogue.getPromptChats, { path: { ...path, prompt_id: prompt.id }, query: q });
      if (!chats.ok) throw new Error('chats drifted');
      truth.chats.push(...chats.data.items.map((c) => c.id));
      for (const chat of chats.data.items) {
        truth.mentions += mentionRows(chat).length;
        truth.references += chat.references.length;
      }
      const analytics = await client.call(catalogue.getPromptAnalytics, {
        path: { ...path, prompt_id: prompt.id },
        query: q,
      });
      if (!analytics.ok) throw new Error('analytics drifted');
      for (const chart of [
        analytics.data.visibility_chart,
        analytics.data.position_chart,
        analytics.data.sentiment_chart,
      ]) {
        truth.metrics += Object.values(chart).reduce((n, v) => n + v.length, 0);
      }
    }
    const active = await client.call(catalogue.listCompetitors, { path, query: window });
    if (active.ok) truth.competitorsActive += active.data.active_competitors.length;
    const pending = await client.call(catalogue.listPendingCompetitors, { path });
    if (pending.ok) truth.competitorsPending += pending.data.pending_competitors.length;
    const trend = await client.call(catalogue.getVisibilityTrend, {
      path,
      query: { date_from: start, date_to: yesterday },
    });
    if (trend.ok) truth.visibility += trend.data.series.length * trend.data.dates.length;
    for (let page = 1; ; page++) {
      const sources = await client.call(catalogue.listSources, { path, query: { ...window, page, page_size: 100 } });
      if (!sources.ok || sources.data.length === 0) break;
      truth.sources += sources.data.length;
      if (sources.data.length < 100) break;
    }
    for (const prompt_type of ['active', 'suggested'] as const) {
      const overview = await client.call(catalogue.getOverview, { path, query: { ...window, prompt_type } });
      if (overview.ok) truth.overview += overview.data.items.length;
    }
    const analytics = await client.call(catalogue.getSourcesAnalytics, { path, query: window });
    if (analytics.ok) {
      truth.sourceStats += 1;
      const chart = analytics.data.performance_chart;
      truth.sourceShareDaily += chart.series.length * chart.dates.length;
      truth.sourceTopDomains += analytics.data.top_domains.length;
      truth.sourceOpportunities += analytics.data.opportunities.length;
    }
    const actions = await client.call(catalogue.listActions, { path });
    if (actions.ok) truth.actions.push(...actions.data.map((a) => a.id));
    const recorded = await client.call(catalogue.listRecordedUrls, { path });
    if (recorded.ok) truth.recordedUrls += recorded.data.urls.length;
  }
  const webhooks = await client.call(catalogue.listWebhooks);
  if (webhooks.ok) truth.webhooks = webhooks.data.map((w) => w.id).sort();
  truth.actions.sort();
  truth.prompts.sort();
  truth.chats.sort();
  await client.close();
  return truth;
}

async function landed() {
  const ids = async (sql: string) => (await query<{ id: string }>(wh, sql)).map((r) => r.id);
  const count = async (table: string, where = 'true') =>
    (await query<{ n: number }>(wh, `SELECT count(*) AS n FROM raw.${table} WHERE ${where}`))[0]?.n ?? -1;
  return {
    projects: await ids('SELECT id FROM raw.projects ORDER BY id'),
    aliases: await count('project_aliases'),
    prompts: await ids('SELECT id FROM raw.prompts ORDER BY id'),
    chats: await ids('SELECT id FROM raw.chats ORDER BY id'),
    mentions: await count('chat_mentions'),
    references: await count('chat_references'),
    metrics: await count('prompt_metrics_daily'),
    competitorsActive: await count('competitors', "list_kind = 'active'"),
    competitorsPending: await count('competitors', "list_kind = 'pending'"),
    visibility: await count('visibility_daily'),
    sources: await count('sources'),
    promptDomains: await count('prompt_domains'),
    promptUrls: await count('prompt_urls'),
    overview: await count('overview'),
    sourceStats: await count('source_stats'),
    sourceShareDaily: await count('source_share_daily'),
    sourceTopDomains: await count('source_top_domains'),
    sourceOpportunities: await count('source_opportunities'),
    actions: await ids('SELECT id FROM raw.actions ORDER BY id'),
    recordedUrls: await count('recorded_urls'),
    webhooks: await ids('SELECT id FROM raw.webhooks ORDER BY id'),
  };
}

describe('vwh sync against the reference server', () => {
  it('lands what the API serves, stream by stream, and records the run', async () => {
    const result = await runSync(server, wh);
    expect(result.status).toBe('succeeded');
    expect(result.failedUnits).toEqual([]);
    // More than a window of requests (70 per 400 ms), and the budget kept every window under the limit.
    expect(result.counters.requests).toBeGreaterThan(70);
    expect(result.counters.throttled429).toBe(0);
    const truth = await apiTruth(TODAY);
    expect(truth.chats.length).toBeGreaterThan(100);
    expect(await landed()).toEqual(truth);
    // No chat twice, and the window streams and per-domain streams have content.
    const dupes = await query(wh, 'SELECT id FROM raw.chats GROUP BY id HAVING count(*) > 1');
    expect(dupes).toEqual([]);
    for (const table of [
      'overview',
      'source_stats',
      'source_top_domains',
      'source_details',
      'source_chats',
      'actions',
    ]) {
      const [row] = await query<{ n: number }>(wh, `SELECT count(*) AS n FROM raw.${table}`);
      expect(row?.n, table).toBeGreaterThan(0);
    }
    const runs = await query<{ status: string; requests: number; rows_per_stream: string; team_id: string }>(
      wh,
      'SELECT status, requests, rows_per_stream, team_id FROM ops.sync_runs',
    );
    expect(runs).toHaveLength(1);
    expect(runs[0]?.status).toBe('succeeded');
    expect(runs[0]?.requests).toBe(result.counters.requests);
    expect(JSON.parse(runs[0]?.rows_per_stream ?? '{}').chats).toBeGreaterThan(0);
    const teams = await query<{ team_id: string }>(wh, 'SELECT DISTINCT team_id FROM raw.chats');
    expect(teams).toEqual([{ team_id: 'team-demo' }]);
    // the rows the summary says landed are those raw.* holds, table by table (chats not summed with its children)
    const perTable = result.counters.rowsPerTable ?? {};
    expect(Object.keys(perTable)).toEqual(
      expect.arrayContaining(['raw.chats', 'raw.chat_mentions', 'raw.chat_references']),
    );
    for (const [table, n] of Object.entries(perTable)) {
      const [held] = await query<{ n: number }>(wh, `SELECT count(*)::int AS n FROM ${table}`);
      expect(n, table).toBe(held?.n);
    }
  });

  it('never stores the API key in ops tables', async () => {
    const key = server.demoApiKey ?? '';
    expect(key.length).toBeGreaterThan(8);
    for (const table of ['sync_runs', 'sync_state', 'rejected_rows', 'rate_budget']) {
      const rows = await query<{ j: string }>(wh, `SELECT CAST(to_json(t) AS VARCHAR) AS j FROM ops.${table} t`);
      for (const row of rows) expect(row.j).not.toContain(key);
    }
  });

  it('a second sync the same day asks nothing: every unit of the day is landed, the warehouse unchanged', async () => {
    const before = await contentOf(wh);
    const result = await runSync(server, wh);
    expect(result.status).toBe('succeeded');
    const chats = result.plan?.streams.find((s) => s.stream === 'chats');
    expect(chats?.parents).toBeGreaterThan(0);
    expect(result.plan?.streams.every((s) => s.units === 0)).toBe(true);
    expect(result.counters.requests).toBe(result.plan?.requests);
    expect(await contentOf(wh)).toEqual(before);
  });

  it('--full-refresh fetches the whole history of the selected streams again and changes nothing', async () => {
    const before = await contentOf(wh);
    const result = await runSync(server, wh, { streams: ['chats'], fullRefresh: true });
    expect(result.status).toBe('succeeded');
    const chats = result.plan?.streams.find((s) => s.stream === 'chats');
    expect(chats?.complete).toBe(0);
    expect(chats?.units).toBeGreaterThanOrEqual(chats?.parents ?? 0);
    // Every chat, mention and reference landed again, replacing (not doubling) what was there.
    expect(result.counters.rowsPerStream.chats).toBe(
      (before.chats?.length ?? 0) + (before.chat_mentions?.length ?? 0) + (before.chat_references?.length ?? 0),
    );
    expect(await contentOf(wh)).toEqual(before);
  });

  it('the next day adds that day and catches the late answers of the day before', async () => {
    const yesterday = TODAY;
    const [before] = await query<{ n: number }>(
      wh,
      `SELECT count(*) AS n FROM raw.chats WHERE chat_date = '${yesterday}'`,
    );
    control.advanceClock(server.state, { days: 1 });
    const tomorrow = addDays(TODAY, 1);
    const result = await runSync(server, wh, { settings: settings(tomorrow) });
    expect(result.status).toBe('succeeded');
    const [after] = await query<{ n: number }>(
      wh,
      `SELECT count(*) AS n FROM raw.chats WHERE chat_date = '${yesterday}'`,
    );
    expect(after?.n).toBeGreaterThan(before?.n ?? 0);
    const [today] = await query<{ n: number }>(
      wh,
      `SELECT count(*) AS n FROM raw.chats WHERE chat_date = '${tomorrow}'`,
    );
    expect(today?.n).toBeGreaterThan(0);
    const truth = await apiTruth(tomorrow);
    const now = await landed();
    expect(now.chats).toEqual(truth.chats);
    expect(now.metrics).toBe(truth.metrics);
    expect(now.visibility).toBe(truth.visibility);
    // The snapshot history keeps one prompt list per sync day.
    const days = await query<{ d: number }>(
      wh,
      'SELECT count(DISTINCT snapshot_date) AS d FROM raw.prompt_state_daily',
    );
    expect(days[0]?.d).toBe(2);
  });
});
