import { catalogue } from '../../api/index.js';
import type { DayRange } from '../../core/days.js';
import { dataRequest, defineStream, type PageScope, type Row, type UnitScope } from '../declare.js';
import { fetchOne } from '../fetch.js';
import type { Parent, SyncSettings, UnitContext } from '../types.js';
import { projectParents } from './parents.js';
import { projectWindow } from './sources.js';

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

/** Per-domain streams: the top domains of the project (read from the landed analytics), every page up to the cap. */
const perDomain = {
  grain: 'snapshot',
  parents: projectParents,
  // The top domains are read from raw.source_top_domains, which source_analytics lands.
  readsLanded: true,
  // A domain's cited URLs and the answers citing it are the chats' references: refreshed on the rotation, each
  // project on its night (no model reads them beyond staging).
  rotated: () => true,
  estimate: (_p: Parent, _r: DayRange, s: SyncSettings) => s.topDomains,
} as const;

const domainRequest = {
  each: ({ ctx, parent }: UnitScope) => topDomains(ctx, parent.id),
  params: ({ ctx, parent }: UnitScope, domain: string) => ({
    path: { project_id: parent.id, domain },
    query: { date_from: ctx.window.from, date_to: ctx.window.to },
  }),
  maxPages: ({ ctx }: UnitScope) => ctx.settings.maxSourcePages,
};

/** What every per-domain row carries: the project, the analysis window, the domain and the page. */
function domainRow(scope: PageScope<string, unknown>, row: Row): Row {
  return { ...row, ...projectWindow(scope).equals, domain: scope.slice, page: scope.page, _extra: null };
}

/**
 * GET sources/{domain}/detail for the top domains, every page of urls and prompts (item fields are not shown by the
 * spec: kept as JSON) → raw.source_details.
 */
export const sourceDetailsStream = defineStream({
  name: 'source_details',
  ...perDomain,
  requests: [
    dataRequest({
      endpoint: catalogue.getSourceDetail,
      ...domainRequest,
      pageSize: 100,
      into: { 'raw.source_details': projectWindow },
      rows: ({ stats, urls, prompts }, scope) => {
        const rows: Row[] = [];
        for (const [section, paged] of [
          ['urls', urls],
          ['prompts', prompts],
        ] as const) {
          paged.items.forEach((item, i) => {
            const item_index = (scope.page - 1) * paged.page_size + i;
            rows.push(domainRow(scope, { section, item_index, section_total: paged.total, item, stats }));
          });
        }
        return { 'raw.source_details': rows };
      },
    }),
  ],
});

/** GET sources/{domain}/chats for the top domains, every page (items kept as JSON) → raw.source_chats. */
export const sourceChatsStream = defineStream({
  name: 'source_chats',
  ...perDomain,
  requests: [
    dataRequest({
      endpoint: catalogue.getSourceChats,
      ...domainRequest,
      pageSize: 50,
      into: { 'raw.source_chats': projectWindow },
      rows: (paged, scope) => ({
        'raw.source_chats': paged.items.map((item, i) =>
          domainRow(scope, { item_index: (scope.page - 1) * paged.page_size + i, item }),
        ),
      }),
    }),
  ],
});
