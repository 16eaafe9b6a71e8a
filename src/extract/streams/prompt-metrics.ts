import { catalogue, PromptAnalytics } from '../../api/index.js';
import { fetchOne } from '../fetch.js';
import { extraOf } from '../rows.js';
import type { StreamDef } from '../types.js';
import { promptParents } from './parents.js';

const CHARTS = [
  ['visibility_chart', 'visibility'],
  ['position_chart', 'position'],
  ['sentiment_chart', 'sentiment'],
] as const;

/**
 * GET .../analytics per prompt and day range: the three charts unpivoted into raw.prompt_metrics_daily (one row
 * per date × provider × metric), and the response's window aggregates (volume, sentiment) into raw.prompt_analytics.
 */
export const promptMetricsStream: StreamDef = {
  name: 'prompt_metrics_daily',
  tables: ['raw.prompt_metrics_daily', 'raw.prompt_analytics'],
  grain: 'daily',
  parents: promptParents,
  // Visibility, position and sentiment per day are derivable from the chats: refreshed on the rotation.
  rotated: () => true,
  estimate: () => 1,
  async fetch(ctx, parent, range) {
    const promptId = parent.promptId ?? parent.id;
    const projectId = parent.projectId ?? '';
    const { data, rejected } = await fetchOne(ctx, catalogue.getPromptAnalytics, {
      path: { project_id: projectId, prompt_id: promptId },
      query: { date_from: range.from, date_to: range.to },
    });
    const metrics: Record<string, unknown>[] = [];
    const windows: Record<string, unknown>[] = [];
    if (data) {
      for (const [chart, metric] of CHARTS) {
        for (const [date, values] of Object.entries(data[chart])) {
          // A date outside the unit's range belongs to another unit's partition.
          if (date < range.from || date > range.to) continue;
          for (const v of values) {
            metrics.push({
              project_id: projectId,
              prompt_id: promptId,
              date,
              provider: v.provider,
              metric,
              value: v.value,
              _extra: extraOf(v, ['provider', 'value']),
            });
          }
        }
      }
      windows.push({
        project_id: projectId,
        prompt_id: promptId,
        window_from: range.from,
        window_to: range.to,
        prompt_content: data.prompt_content,
        volume: data.volume,
        sentiment: data.sentiment,
        _extra: extraOf(data, PromptAnalytics),
      });
    }
    return {
      loads: [
        {
          table: 'raw.prompt_metrics_daily',
          partition: {
            equals: { project_id: projectId, prompt_id: promptId },
            between: { column: 'date', from: range.from, to: range.to },
          },
          rows: metrics,
        },
        {
          table: 'raw.prompt_analytics',
          partition: {
            equals: { project_id: projectId, prompt_id: promptId, window_from: range.from, window_to: range.to },
          },
          rows: windows,
        },
      ],
      rejected,
    };
  },
};
