/** Per-brand tallies over a scan: the own brand and every tracked competitor, keyed across days by identity. */
import { isOwnBrandCompetitor, type TrackedBrand } from '../context.js';
import type { Engine } from '../engine.js';
import type { CompetitorConfig, ProjectConfig, PromptConfig, WorldQuery } from '../types.js';
import { getOrInsert, Mean } from './common.js';

/** The own brand's identity key; competitors use their id. */
export const OWN = 'own';

export function identity(t: TrackedBrand): string {
  return t.isOwn ? OWN : (t.competitorId ?? OWN);
}

export interface BrandTally {
  mentions: number;
  position: Mean;
  sentiment: Mean;
}

export interface BrandTallies {
  answers: number;
  days: Set<number>;
  brands: Map<string, BrandTally>;
}

export function tallyBrands(
  engine: Engine,
  project: ProjectConfig,
  query: WorldQuery,
  prompts?: PromptConfig[],
): BrandTallies {
  const out: BrandTallies = { answers: 0, days: new Set(), brands: new Map() };
  engine.scan(
    project,
    query,
    ({ ctx, facts, day }) => {
      out.answers++;
      out.days.add(day);
      facts.tracked.forEach((t, i) => {
        const brand = ctx.tracked[t.idx];
        if (!brand) return;
        const key = identity(brand);
        const tally = getOrInsert(out.brands, key, () => ({
          mentions: 0,
          position: new Mean(),
          sentiment: new Mean(),
        }));
        tally.mentions++;
        tally.position.add(i + 1);
        tally.sentiment.add(t.sentiment);
      });
    },
    prompts ?? project.prompts,
  );
  return out;
}

/** Active, not deleted competitors of the project snapshot, in configuration order. */
export function activeCompetitors(project: ProjectConfig): CompetitorConfig[] {
  return project.competitors.filter((c) => c.state === 'active' && c.deleted_at === null);
}

/** The identity a competitor entry's metrics come from (its own id, or the own brand's). */
export function competitorIdentity(project: ProjectConfig, c: CompetitorConfig): string {
  return isOwnBrandCompetitor(project, c) && project.brand_name ? OWN : c.id;
}
