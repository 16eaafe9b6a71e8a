import type * as z from 'zod';
import type { EndpointDef } from '../../api/endpoint.js';
import { Article, catalogue, Task, TaskError, TaskInputs } from '../../api/index.js';
import type { CallParams } from '../../client/api-client.js';
import { fetchList, field } from '../fetch.js';
import { extraOf, nestExtra } from '../rows.js';
import type { Rejection, StreamDef } from '../types.js';
import { teamParent } from './parents.js';

/** The content service's largest page (`limit` and `page_size` are capped at 100). */
const PAGE = 100;

/**
 * A team-level list of the content service, page after page until its `total` (or a short page), landed whole into
 * one table. The content service lives at the configured services base URL and takes no API key.
 */
function contentListStream<E extends EndpointDef, I extends z.ZodType>(spec: {
  name: string;
  table: string;
  endpoint: E;
  item: I;
  /** Where the items sit in the response (`tasks`, `articles`). */
  list: string;
  /** The query of the page with this index (0, 1, …). */
  query(index: number): CallParams<E>['query'];
  row(item: z.output<I>): Record<string, unknown>;
}): StreamDef {
  return {
    name: spec.name,
    tables: [spec.table],
    grain: 'snapshot',
    parents: teamParent,
    estimate: () => 1,
    async fetch(ctx) {
      const rows: Record<string, unknown>[] = [];
      const rejected: Rejection[] = [];
      for (let index = 0; ; index++) {
        const params = { query: spec.query(index) } as CallParams<E>;
        const res = await fetchList(ctx, spec.endpoint, params, spec.item, field(spec.list));
        rejected.push(...res.rejected);
        rows.push(...res.items.map(spec.row));
        const total = (res.data as { total?: unknown } | undefined)?.total;
        const count = res.items.length + res.rejected.length;
        if (count < PAGE || (typeof total === 'number' && (index + 1) * PAGE >= total)) break;
      }
      return { loads: [{ table: spec.table, partition: { equals: {} }, rows }], rejected };
    },
  };
}

/** GET /api/v1/tasks, every status, offset by offset → raw.content_tasks. */
export const contentTasksStream = contentListStream({
  name: 'content_tasks',
  table: 'raw.content_tasks',
  endpoint: catalogue.listTasks,
  item: Task,
  list: 'tasks',
  query: (index) => ({ limit: PAGE, offset: index * PAGE }),
  row: taskRow,
});

/** GET /api/v1/articles, every publication status, page by page → raw.articles (full articles). */
export const articlesStream = contentListStream({
  name: 'articles',
  table: 'raw.articles',
  endpoint: catalogue.listArticles,
  item: Article,
  list: 'articles',
  query: (index) => ({ page: index + 1, page_size: PAGE }),
  row: (a) => ({ ...a, _extra: extraOf(a, Article) }),
});

function taskRow(t: Task): Record<string, unknown> {
  const { inputs, error } = t;
  return {
    task_id: t.task_id,
    status: t.status,
    phase: t.phase,
    progress: t.progress,
    user_prompt: inputs.user_prompt,
    keywords: inputs.keywords,
    reference_links: inputs.reference_links,
    uploaded_files: inputs.uploaded_files,
    min_words: inputs.min_words,
    max_words: inputs.max_words,
    error_code: error?.code ?? null,
    error_message: error?.message ?? null,
    created_at: t.created_at,
    updated_at: t.updated_at,
    started_at: t.started_at,
    completed_at: t.completed_at,
    _extra: nestExtra(extraOf(t, Task), {
      inputs: extraOf(inputs, TaskInputs),
      error: error ? extraOf(error, TaskError) : null,
    }),
  };
}
