import { catalogue, PromptAnalytics } from '../../api/index.js';
import { dataRequest, defineStream, type Row } from '../declare.js';
import { extraOf, fieldsOf } from '../rows.js';
import { promptParents, promptPath } from './parents.js';

const CHARTS = [
  ['visibility_chart', 'visibility'],
  ['position_chart', 'position'],
  ['sentiment_chart', 'sentiment'],
] as const;
/** A chart value's fields: its `_extra` is the rest (one set for every value of every response). */
const VALUE_FIELDS = fieldsOf(['provider', 'value']);

/**
 * GET .../analytics per prompt and day range: the three charts unpivoted into raw.prompt_metrics_daily (one row
 * per date × provider × metric), and the response's window aggregates (volume, sentiment) into raw.prompt_analytics.
 */
export const promptMetricsStream = defineStream({
  name: 'prompt_metrics_daily',
  grain: 'daily',
  parents: promptParents,
  // Visibility, position and sentiment per day are derivable from the chats: refreshed on the rotation.
  rotated: () => true,
  requests: [
    dataRequest({
      endpoint: catalogue.getPromptAnalytics,
      params: ({ parent, range }) => ({
        path: promptPath(parent),
        query: { date_from: range.from, date_to: range.to },
      }),
      into: {
        'raw.prompt_metrics_daily': ({ parent, range }) => ({
          equals: promptPath(parent),
          between: { column: 'date', from: range.from, to: range.to },
        }),
        'raw.prompt_analytics': ({ parent, range }) => ({
          equals: { ...promptPath(parent), window_from: range.from, window_to: range.to },
        }),
      },
      rows: (data, { parent, range }) => {
        const { project_id, prompt_id } = promptPath(parent);
        const metrics: Row[] = [];
        for (const [chart, metric] of CHARTS) {
          for (const [date, values] of Object.entries(data[chart])) {
            // A date outside the unit's range belongs to another unit's partition.
            if (date < range.from || date > range.to) continue;
            for (const v of values) {
              metrics.push({
                project_id,
                prompt_id,
                date,
                provider: v.provider,
                metric,
                value: v.value,
                _extra: extraOf(v, VALUE_FIELDS),
              });
            }
          }
        }
        const window = {
          project_id,
          prompt_id,
          window_from: range.from,
          window_to: range.to,
          prompt_content: data.prompt_content,
          volume: data.volume,
          sentiment: data.sentiment,
          _extra: extraOf(data, PromptAnalytics),
        };
        return { 'raw.prompt_metrics_daily': metrics, 'raw.prompt_analytics': [window] };
      },
    }),
  ],
});
