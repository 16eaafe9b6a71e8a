/** Competitors: active list (own brand injected by the world), pending, review, create, update, delete. */
import type { Hono } from 'hono';
import { ERRORS } from '../../api/index.js';
import { addDays } from '../../core/days.js';
import type { ApiEnv } from '../http/env.js';
import { worldQuery } from '../http/query.js';
import { route } from '../http/route.js';
import { rowError } from '../net/http-error.js';
import type { ReferenceState } from '../server/reference-state.js';
import type { ProjectRecord } from '../state/projects.js';
import { competitorCreatedItem, competitorItem, normalizeWebsite } from '../views/competitor.js';
import { uuidFrom } from '../world/hash.js';
import type { CompetitorConfig } from '../world/types.js';

export const ACTIVE_COMPETITOR_LIMIT = 10;

function live(project: ProjectRecord): CompetitorConfig[] {
  return project.config.competitors.filter((c) => c.deleted_at === null);
}

/** The tracked brand itself may be stored as a competitor; it does not count towards the limit (decided). */
function isOwnBrand(project: ProjectRecord, c: CompetitorConfig): boolean {
  const own = project.config.website_url ? normalizeWebsite(project.config.website_url)?.domain : undefined;
  const brand = project.config.brand_name?.trim().toLowerCase();
  return (own !== undefined && domainOf(c) === own) || (brand !== undefined && c.name.trim().toLowerCase() === brand);
}

function activeCount(project: ProjectRecord): number {
  return live(project).filter((c) => c.state === 'active' && !isOwnBrand(project, c)).length;
}

function findCompetitor(project: ProjectRecord, id: string | undefined): CompetitorConfig {
  const found = live(project).find((c) => c.id === id?.toLowerCase());
  if (!found) throw rowError(ERRORS.competitorNotFound);
  return found;
}

function domainOf(c: CompetitorConfig): string {
  return normalizeWebsite(c.website)?.domain ?? c.website.toLowerCase();
}

function replace(state: ReferenceState, project: ProjectRecord, next: CompetitorConfig): void {
  state.projects.update(project, (cfg) => ({
    ...cfg,
    competitors: cfg.competitors.map((x) => (x.id === next.id ? next : x)),
  }));
}

/** Turns the brands the world detects into pending competitors (once; a deleted or rejected one stays out). */
export function refreshPending(state: ReferenceState, project: ProjectRecord): void {
  const known = new Set(project.config.competitors.map(domainOf));
  const names = new Set(project.config.competitors.map((c) => c.name.toLowerCase()));
  const added: CompetitorConfig[] = [];
  for (const found of state.world.detectCompetitors(project.config, state.sim.now())) {
    const site = normalizeWebsite(found.website);
    if (!site || known.has(site.domain) || names.has(found.name.toLowerCase())) continue;
    known.add(site.domain);
    added.push({
      id: uuidFrom(state.options.seed, project.config.id, 'competitor', site.domain),
      name: found.name,
      website: site.url,
      state: 'pending',
      created_at: state.nowIso(),
      deleted_at: null,
    });
  }
  if (added.length > 0)
    state.projects.update(project, (cfg) => ({ ...cfg, competitors: [...cfg.competitors, ...added] }));
}

/** A competitor in the list shape; for an active one, the metrics the world gives over the default 7 days. */
function listItem(state: ReferenceState, project: ProjectRecord, c: CompetitorConfig) {
  if (c.state !== 'active') return competitorItem(project.config.id, c, null);
  const today = state.sim.today();
  const range = { from: addDays(today, -6), to: today };
  const active = state.world.competitors(project.config, { range, now: state.sim.now() });
  const served = (active.active_competitors as Array<{ competitor_id?: string; metrics?: unknown }>).find(
    (item) => item.competitor_id === c.id,
  );
  return competitorItem(project.config.id, c, served?.metrics ?? null);
}

export function registerCompetitors(api: Hono<ApiEnv>, state: ReferenceState): void {
  route(api, state, 'listCompetitors', ({ project, query }) =>
    state.world.competitors(project.config, worldQuery(state, query)),
  );

  route(api, state, 'listPendingCompetitors', ({ project }) => {
    refreshPending(state, project);
    const pending = live(project)
      .filter((x) => x.state === 'pending')
      .map((x) => competitorItem(project.config.id, x, null));
    return { pending_competitors: pending, total_pending: pending.length };
  });

  route(
    api,
    state,
    'reviewCompetitor',
    ({ c, project, body }) => {
      const competitor = findCompetitor(project, c.req.param('competitor_id'));
      if (competitor.state !== 'pending') throw rowError(ERRORS.competitorNotPending);
      if (body.state === 'active' && activeCount(project) >= ACTIVE_COMPETITOR_LIMIT) {
        throw rowError(ERRORS.competitorLimit);
      }
      replace(state, project, { ...competitor, state: body.state });
      return { competitor_id: competitor.id, project_id: project.config.id, state: body.state };
    },
    { invalidBody: ERRORS.competitorStateInvalid },
  );

  route(
    api,
    state,
    'createCompetitors',
    ({ project, body }) => {
      const existing = new Set(live(project).map(domainOf));
      const seen = new Set<string>();
      const parsed = body.competitors.map((entry) => {
        const site = normalizeWebsite(entry.website);
        if (!site || seen.has(site.domain)) throw rowError(ERRORS.competitorCreateInvalid);
        seen.add(site.domain);
        return { name: entry.name.trim(), site };
      });
      if (parsed.some((p) => existing.has(p.site.domain))) throw rowError(ERRORS.competitorDomainTaken);
      if (activeCount(project) + parsed.length > ACTIVE_COMPETITOR_LIMIT) throw rowError(ERRORS.competitorLimit);
      const now = state.nowIso();
      const created: CompetitorConfig[] = parsed.map((p) => ({
        id: state.ids.next('competitor'),
        name: p.name,
        website: p.site.url,
        state: 'active',
        created_at: now,
        deleted_at: null,
      }));
      state.projects.update(project, (cfg) => ({ ...cfg, competitors: [...cfg.competitors, ...created] }));
      return {
        projectId: project.config.id,
        created: created.length,
        competitors: created.map((x) => competitorCreatedItem(project.config.id, x)),
      };
    },
    { invalidBody: ERRORS.competitorCreateInvalid },
  );

  route(
    api,
    state,
    'updateCompetitor',
    ({ c, project, body }) => {
      const competitor = findCompetitor(project, c.req.param('competitor_id'));
      const next = { ...competitor };
      if (body.name !== undefined) next.name = body.name.trim();
      if (body.website !== undefined) {
        const site = normalizeWebsite(body.website);
        if (!site) throw rowError(ERRORS.competitorUpdateInvalid);
        if (live(project).some((x) => x.id !== competitor.id && domainOf(x) === site.domain)) {
          throw rowError(ERRORS.competitorDomainTaken);
        }
        next.website = site.url;
      }
      if (next.name === competitor.name && next.website === competitor.website) {
        throw rowError(ERRORS.competitorUpdateInvalid);
      }
      replace(state, project, next);
      return listItem(state, project, next);
    },
    { invalidBody: ERRORS.competitorUpdateInvalid },
  );

  route(api, state, 'deleteCompetitor', ({ c, project }) => {
    const competitor = findCompetitor(project, c.req.param('competitor_id'));
    replace(state, project, { ...competitor, deleted_at: state.nowIso() });
    return { competitor_id: competitor.id, message: 'Competitor deleted' };
  });
}
