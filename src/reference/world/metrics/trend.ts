/** The visibility trend: one series per active competitor (own brand first), days aligned, providers averaged. */
import { dayFromNumber } from '../../../core/days.js';
import type { Engine } from '../engine.js';
import { domainOf } from '../names.js';
import { PROVIDERS } from '../providers.js';
import type { ProjectConfig, WorldQuery } from '../types.js';
import { activeCompetitors, competitorIdentity, identity, OWN } from './brands.js';
import { brandIcons, getOrInsert, Mean, period, round2 } from './common.js';
import { NIL_UUID } from './competitors.js';

interface Cell {
  answers: number;
  mentions: Map<string, { n: number; position: number; sentiment: number }>;
}

/** Mean of the per-provider values that exist; null when none. */
function providerMean(values: Array<number | null>): number | null {
  const m = new Mean();
  for (const v of values) if (v !== null) m.add(v);
  const v = m.value();
  return v === null ? null : round2(v);
}

export function visibilityTrend(engine: Engine, project: ProjectConfig, query: WorldQuery) {
  const { from, to } = engine.days(query);
  const days: number[] = [];
  for (let d = from; d <= to; d++) days.push(d);
  const cells = new Map<number, Cell[]>();
  engine.scan(project, query, ({ ctx, facts, day, provider }) => {
    const row = getOrInsert(cells, day, (): Cell[] => PROVIDERS.map(() => ({ answers: 0, mentions: new Map() })));
    const cell = row[provider];
    if (!cell) return;
    cell.answers++;
    facts.tracked.forEach((t, i) => {
      const brand = ctx.tracked[t.idx];
      if (!brand) return;
      const key = identity(brand);
      const m = cell.mentions.get(key) ?? { n: 0, position: 0, sentiment: 0 };
      m.n++;
      m.position += i + 1;
      m.sentiment += t.sentiment;
      cell.mentions.set(key, m);
    });
  });
  const seriesOf = (key: string) => {
    const visibility: Array<number | null> = [];
    const sentiment: Array<number | null> = [];
    const position: Array<number | null> = [];
    for (const day of days) {
      const row = (cells.get(day) ?? []).filter((c) => c.answers > 0);
      visibility.push(providerMean(row.map((c) => ((c.mentions.get(key)?.n ?? 0) / c.answers) * 100)));
      sentiment.push(
        providerMean(
          row.map((c) => {
            const m = c.mentions.get(key);
            return m ? m.sentiment / m.n : null;
          }),
        ),
      );
      position.push(
        providerMean(
          row.map((c) => {
            const m = c.mentions.get(key);
            return m ? m.position / m.n : null;
          }),
        ),
      );
    }
    return { visibility, sentiment, position };
  };
  const series = activeCompetitors(project).map((c) => {
    const key = competitorIdentity(project, c);
    return {
      competitor_id: c.id,
      name: c.name,
      website: c.website,
      icon_url: brandIcons(domainOf(c.website)).icon_url,
      is_own_brand: key === OWN,
      ...seriesOf(key),
    };
  });
  if (project.brand_name && !series.some((s) => s.is_own_brand)) {
    series.unshift({
      competitor_id: NIL_UUID,
      name: project.brand_name,
      website: project.website_url ?? '',
      icon_url: brandIcons(domainOf(project.website_url)).icon_url,
      is_own_brand: true,
      ...seriesOf(OWN),
    });
  }
  return { dates: days.map(dayFromNumber), period: period(query), series };
}
