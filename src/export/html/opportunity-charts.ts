/**
 * The HTML report's opportunity charts: the sources and the prompts where competitors lead, and the competitor gaps.
 */
import type { Plain } from '../reports/formats.js';
import type { Chart } from './chart.js';
import { fmt, horizontalBars, nRange, num, people, sum } from './chart-parts.js';
import type { ProjectData } from './data.js';

/**
 * The source window is the API's latest analysis window, which can end after the warehouse's newest day (the API
 * counts today's answers, the nightly build stops at yesterday): the caption says where the counted answers end.
 */
function sourceWindowNote(p: ProjectData, windowTo: Plain | undefined): string {
  if (!p.answersThrough || typeof windowTo !== 'string' || windowTo <= p.answersThrough) return '';
  return ` (the API's analysis window; the warehouse holds its answers through ${p.answersThrough})`;
}

export function sourceChart(p: ProjectData): Chart {
  const rows = p.sourceOpportunities;
  const gaps = rows.filter((r) => r.is_opportunity === true).length;
  const addressed = rows.filter((r) => r.addressed_by_action !== null && r.addressed_by_action !== undefined).length;
  return {
    key: 'sources',
    title: 'Top source opportunities',
    caption:
      `Domains AI answers cite, top ${rows.length}: the ${gaps} whose citing answers leave the brand out for a ` +
      'competitor more often than the project’s answers do (beyond sampling) first, then the others; bars are the ' +
      `opportunity score (0–100, the project’s best domain 100: reach × gap × category weight)` +
      (addressed ? `; ${addressed} marked ✓ were targeted by a completed action` : '') +
      `; window ${rows[0]?.window_from ?? '–'} to ${rows[0]?.window_to ?? '–'}${sourceWindowNote(p, rows[0]?.window_to)}, ` +
      `n = ${fmt(num(rows[0]?.responses))} answers.`,
    height: 40 + rows.length * 28,
    option: horizontalBars(
      rows.map((r) => `${r.addressed_by_action ? '✓ ' : ''}${String(r.domain)}`),
      rows.map((r) => num(r.opportunity_score)),
      'opportunity score (0–100)',
    ),
    table: {
      columns: [
        'rank',
        'domain',
        'category',
        'score (0–100)',
        'citing answers',
        'answers (n)',
        'gap share %',
        'gap share %, project',
        'opportunity',
        'completed action',
      ],
      rows: rows.map((r) => [
        num(r.score_rank),
        String(r.domain),
        String(r.category_name),
        num(r.opportunity_score),
        num(r.citing_responses),
        num(r.responses),
        num(r.gap_share_pct),
        num(r.project_gap_share_pct),
        r.is_opportunity === true ? 'yes' : 'no',
        (r.addressed_by_action as string | null) ?? null,
      ]),
    },
  };
}

export function promptChart(p: ProjectData): Chart {
  const rows = p.promptOpportunities;
  const imputed = rows.filter((r) => r.demand_imputed === true).length;
  return {
    key: 'prompts',
    title: 'Top prompt opportunities',
    caption:
      `Prompts whose answers name a tracked competitor more often than ${p.brandName || 'the brand'} beyond ` +
      `sampling noise, in searches per month that lead holds (demand × intent weight × the lower 95% bound of the ` +
      `competitor's lead), all providers, top ${rows.length} of the prompts active on ` +
      `${rows[0]?.window_to ?? '–'} with at least 30 answers; 28 days to ${rows[0]?.window_to ?? '–'}; ` +
      `n = ${fmt(sum(rows, 'responses'))} answers to these prompts` +
      (imputed ? `; ${imputed} marked * have no demand of their own (the project’s median is used).` : '.'),
    height: 40 + rows.length * 28,
    option: horizontalBars(
      rows.map((r) => `${r.demand_imputed === true ? '* ' : ''}${String(r.prompt_content)}`),
      rows.map((r) => num(r.opportunity_searches_per_month)),
      'searches per month',
    ),
    table: {
      columns: [
        'rank',
        'prompt',
        'searches per month',
        'demand imputed',
        'answers (n)',
        'naming brand',
        'best competitor',
        'naming it',
        'its lead (pp)',
        'lead 95% interval',
      ],
      rows: rows.map((r) => [
        num(r.score_rank),
        String(r.prompt_content),
        num(r.opportunity_searches_per_month),
        r.demand_imputed === true ? 'yes (median)' : 'no',
        num(r.responses),
        num(r.brand_mentions),
        r.best_competitor as string | null,
        num(r.best_competitor_mentions),
        num(r.gap_pp),
        `${people(num(r.gap_ci_low_pp))} to ${people(num(r.gap_ci_high_pp))}`,
      ]),
    },
  };
}

export function gapChart(p: ProjectData): Chart {
  const rows = p.gaps;
  return {
    key: 'gaps',
    title: 'Competitor gaps',
    caption:
      `Share of answers naming the competitor and not the brand, over the prompts where it happens, all providers, ` +
      `with 95% Wilson intervals. n = ${nRange(rows, 'responses')} answers per competitor (those to the prompts where ` +
      `it has a gap; one answer counts for each competitor it names), ${fmt(sum(rows, 'prompts'))} prompt-competitor pairs.`,
    height: 40 + rows.length * 28,
    option: horizontalBars(
      rows.map((r) => String(r.competitor_name)),
      rows.map((r) => num(r.gap_pct)),
      '% of answers: competitor named, brand not',
      rows.map((r) => [num(r.ci_low), num(r.ci_high)]),
    ),
    table: {
      columns: ['competitor', 'gap answers', 'answers (n)', 'prompts', 'gap %', '95% low', '95% high'],
      rows: rows.map((r) => [
        String(r.competitor_name),
        num(r.gap_responses),
        num(r.responses),
        num(r.prompts),
        num(r.gap_pct),
        num(r.ci_low),
        num(r.ci_high),
      ]),
    },
  };
}
