import { Article, catalogue, Task, TaskError, TaskInputs } from '../../api/index.js';
import { defineStream, listRequest } from '../declare.js';
import { field } from '../fetch.js';
import { extraOf, nestExtra } from '../rows.js';
import { teamParent } from './parents.js';

/** The content service's largest page (`limit` and `page_size` are capped at 100). */
const PAGE = 100;

/**
 * A team-level list of the content service, every page (as its declared pagination says), landed whole into one
 * table. The content service lives at the configured services base URL and takes no API key.
 */
const teamList = {
  grain: 'snapshot',
  parents: teamParent,
} as const;

const wholeTeam = () => ({ equals: {} });

/** GET /api/v1/tasks, every status, offset by offset → raw.content_tasks. */
export const contentTasksStream = defineStream({
  name: 'content_tasks',
  ...teamList,
  requests: [
    listRequest({
      endpoint: catalogue.listTasks,
      params: () => ({}),
      pageSize: PAGE,
      into: { 'raw.content_tasks': wholeTeam },
      item: Task,
      pick: field('tasks'),
      key: (t) => t.task_id,
      row: taskRow,
    }),
  ],
});

/** GET /api/v1/articles, every publication status, page by page → raw.articles (full articles). */
export const articlesStream = defineStream({
  name: 'articles',
  ...teamList,
  requests: [
    listRequest({
      endpoint: catalogue.listArticles,
      params: () => ({}),
      pageSize: PAGE,
      into: { 'raw.articles': wholeTeam },
      item: Article,
      pick: field('articles'),
      key: (a) => a.article_id,
      row: (a) => ({ ...a, _extra: extraOf(a, Article) }),
    }),
  ],
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
