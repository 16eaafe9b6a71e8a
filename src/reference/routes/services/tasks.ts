/** Content service, tasks: create (202, pending), list (status, limit, offset), get, cancel, a task's articles. */
import type { Hono } from 'hono';
import { CONTENT_ERROR_STATUS, ERRORS } from '../../../api/index.js';
import { route } from '../../http/route.js';
import { HttpError } from '../../net/http-error.js';
import type { ReferenceState } from '../../server/reference-state.js';
import { articleView } from './articles.js';

// biome-ignore lint/suspicious/noExplicitAny: mounted on the reference server's root app
export function registerTaskRoutes(app: Hono<any>, state: ReferenceState): void {
  const content = () => state.services.content;
  const opts = { badParams: ERRORS.taskNotFound, guard: () => content().guard() };

  route(
    app,
    state,
    'createTask',
    ({ body }) => {
      const task = content().createTask({
        user_prompt: body.user_prompt,
        keywords: body.keywords ?? [],
        reference_links: body.reference_links ?? [],
        uploaded_files: (body.uploaded_files ?? []).map((f) => ({ ...f, file_type: f.file_type.toLowerCase() })),
        min_words: body.min_words ?? null,
        max_words: body.max_words ?? null,
      });
      return { task_id: task.task_id, status: 'pending' };
    },
    opts,
  );

  route(
    app,
    state,
    'listTasks',
    ({ query }) => {
      const store = content();
      const views = store.allTasks().map((t) => store.view(t));
      const matching = query.status ? views.filter((v) => v.status === query.status) : views;
      return {
        tasks: matching.slice(query.offset, query.offset + query.limit),
        total: matching.length,
        limit: query.limit,
        offset: query.offset,
      };
    },
    opts,
  );

  route(app, state, 'getTask', ({ params }) => content().view(content().getTask(params.task_id)), opts);

  route(
    app,
    state,
    'cancelTask',
    ({ params }) => {
      const store = content();
      const task = store.getTask(params.task_id);
      store.cancel(task);
      return store.view(task);
    },
    opts,
  );

  route(
    app,
    state,
    'listTaskArticles',
    ({ params }) => {
      const store = content();
      const task = store.getTask(params.task_id);
      const view = store.view(task);
      // A failed task has no article: its articles answer the failure (LLM_ERROR 502, WORKFLOW_ERROR 500).
      if (view.status === 'failed' && view.error) {
        const code = view.error.code as keyof typeof CONTENT_ERROR_STATUS;
        throw new HttpError(CONTENT_ERROR_STATUS[code], { error: { ...view.error } });
      }
      return { task_id: task.task_id, articles: store.articlesOf(task).map(articleView) };
    },
    opts,
  );
}
