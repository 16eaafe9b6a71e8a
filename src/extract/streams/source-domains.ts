import { catalogue } from '../../api/index.js';
import { fetchOne } from '../fetch.js';
import type { Rejection, StreamDef, UnitContext } from '../types.js';
import { projectParents } from './parents.js';

const DETAIL_PAGE_SIZE = 100;
const CHATS_PAGE_SIZE = 50;

type Window = { window_from: string; window_to: string };

/** One page of one domain: its rows, its rejections, and whether another page follows. */
interface DomainPage {
  rows: Record<string, unknown>[];
  rejected: Rejection[];
  more: boolean;
}

/**
 * The domains the expensive per-domain streams cover: the top `topDomains` of the project's analytics landed for
 * this window (source_analytics runs first), else the first page of GET sources.
 */
async function topDomains(ctx: UnitContext, projectId: string): Promise<string[]> {
  const n = ctx.settings.topDomains;
  if (n <= 0) return [];
  const landed = await ctx.ws.session.all<{ domain: string }>(
    `SELECT domain FROM raw.source_top_domains
     WHERE team_id = $1 AND project_id = $2 AND window_from = CAST($3 AS DATE) AND window_to = CAST($4 AS DATE)
     ORDER BY rank LIMIT ${Math.floor(n)}`,
    [ctx.teamId, projectId, ctx.window.from, ctx.window.to],
  );
  if (landed.length > 0) return landed.map((r) => r.domain);
  const { data } = await fetchOne(ctx, catalogue.listSources, {
    path: { project_id: projectId },
    query: { date_from: ctx.window.from, date_to: ctx.window.to, page: 1, page_size: Math.min(100, n) },
  });
  return (data ?? []).slice(0, n).map((s) => s.domain);
}

/**
 * A per-domain stream: for each top domain of the project, page after page (up to `maxSourcePages`) until a page
 * says there is no more; every row carries the project, the analysis window and the domain.
 */
function perDomainStream(
  name: string,
  table: string,
  page: (ctx: UnitContext, projectId: string, domain: string, w: Window, page: number) => Promise<DomainPage>,
): StreamDef {
  return {
    name,
    tables: [table],
    grain: 'snapshot',
    parents: projectParents,
    // The top domains are read from raw.source_top_domains, which source_analytics lands.
    readsLanded: true,
    estimate: (_p, _r, s) => s.topDomains,
    async fetch(ctx, parent) {
      const projectId = parent.id;
      const w = { window_from: ctx.window.from, window_to: ctx.window.to };
      const rows: Record<string, unknown>[] = [];
      const rejected: Rejection[] = [];
      for (const domain of await topDomains(ctx, projectId)) {
        for (let n = 1; n <= ctx.settings.maxSourcePages; n++) {
          const got = await page(ctx, projectId, domain, w, n);
          rejected.push(...got.rejected);
          for (const row of got.rows) rows.push({ ...row, project_id: projectId, ...w, domain, page: n, _extra: null });
          if (!got.more) break;
        }
      }
      return { loads: [{ table, partition: { equals: { project_id: projectId, ...w } }, rows }], rejected };
    },
  };
}

/**
 * GET sources/{domain}/detail for the top domains, every page of urls and prompts (item fields are not shown by the
 * spec: kept as JSON) → raw.source_details.
 */
export const sourceDetailsStream = perDomainStream(
  'source_details',
  'raw.source_details',
  async (ctx, projectId, domain, w, page) => {
    const res = await fetchOne(ctx, catalogue.getSourceDetail, {
      path: { project_id: projectId, domain },
      query: { date_from: w.window_from, date_to: w.window_to, page, page_size: DETAIL_PAGE_SIZE },
    });
    if (!res.data) return { rows: [], rejected: res.rejected, more: false };
    const { stats, urls, prompts } = res.data;
    const rows: Record<string, unknown>[] = [];
    for (const [section, paged] of [
      ['urls', urls],
      ['prompts', prompts],
    ] as const) {
      paged.items.forEach((item, i) => {
        const item_index = (page - 1) * paged.page_size + i;
        rows.push({ section, item_index, section_total: paged.total, item, stats });
      });
    }
    const more = [urls, prompts].some((p) => p.page * p.page_size < p.total && p.items.length > 0);
    return { rows, rejected: res.rejected, more };
  },
);

/** GET sources/{domain}/chats for the top domains, every page (items kept as JSON) → raw.source_chats. */
export const sourceChatsStream = perDomainStream(
  'source_chats',
  'raw.source_chats',
  async (ctx, projectId, domain, w, page) => {
    const res = await fetchOne(ctx, catalogue.getSourceChats, {
      path: { project_id: projectId, domain },
      query: { date_from: w.window_from, date_to: w.window_to, page, page_size: CHATS_PAGE_SIZE },
    });
    if (!res.data) return { rows: [], rejected: res.rejected, more: false };
    const paged = res.data;
    const rows = paged.items.map((item, i) => ({ item_index: (page - 1) * paged.page_size + i, item }));
    return { rows, rejected: res.rejected, more: paged.items.length > 0 && paged.page * paged.page_size < paged.total };
  },
);
