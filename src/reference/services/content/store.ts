/**
 * Tasks and articles of the content service. Task status is derived from the simulated clock (pipeline.ts) and
 * settled on every read: a task seen completed for the first time gets its article written then.
 */
import { type ArticleUpdateBody, ERRORS } from '../../../api/index.js';
import { contentFail, rowError } from '../../net/http-error.js';
import type { IdSource } from '../../state/ids.js';
import { type PlannedFailure, timeline } from './pipeline.js';
import { type Brief, minimumWords, wordBounds, writeArticle } from './writer.js';

export interface TaskRecord {
  seq: number;
  task_id: string;
  inputs: Brief;
  created_ms: number;
  failure: PlannedFailure | null;
  cancelled: { at_ms: number; progress: number; started_ms: number | null } | null;
  article_id: string | null;
}

export interface ArticleRecord {
  seq: number;
  article_id: string;
  task_id: string | null;
  title: string;
  content: string;
  slug: string;
  seo_title: string | null;
  seo_description: string | null;
  keywords: string[];
  featured_images: Array<{ url: string; alt: string | null }>;
  data_sources: Array<{ title: string | null; url: string }>;
  publication_status: 'draft' | 'published' | 'archived';
  published_at: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface ContentClock {
  now(): number;
  stepMs(): number;
}

const iso = (ms: number) => new Date(ms).toISOString();

export class ContentStore {
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly articles = new Map<string, ArticleRecord>();
  private seq = 0;
  /** Test hook: the next task created fails in this phase with this code. */
  nextFailure: PlannedFailure | null = null;
  /** Test hook: every content request answers 503 DATABASE_ERROR while set. */
  storageOutage = false;

  constructor(
    private readonly ids: () => IdSource,
    private readonly clock: ContentClock,
    private readonly seed: number,
    private readonly maxConcurrent: number,
  ) {}

  guard(): void {
    if (this.storageOutage) throw rowError(ERRORS.contentDatabase);
  }

  createTask(inputs: Brief): TaskRecord {
    const needed = minimumWords(inputs);
    const [, max] = wordBounds(inputs);
    if (needed > max) {
      throw contentFail(
        'VALIDATION_ERROR',
        `Invalid input parameters: max_words: the brief needs at least ${needed} words (title, every keyword, every link and file cited); max_words is ${max}`,
        [{ path: 'max_words', message: `must be at least ${needed} for this brief` }],
      );
    }
    const running = [...this.tasks.values()].filter((t) => {
      const s = this.view(t).status;
      return s === 'pending' || s === 'processing';
    }).length;
    if (running >= this.maxConcurrent) {
      throw rowError(
        ERRORS.contentRateLimit,
        `Too many concurrent requests: ${running} tasks are pending or processing (limit ${this.maxConcurrent})`,
      );
    }
    this.seq += 1;
    const task: TaskRecord = {
      seq: this.seq,
      task_id: this.ids().next('content-task'),
      inputs,
      created_ms: this.clock.now(),
      failure: this.nextFailure,
      cancelled: null,
      article_id: null,
    };
    this.nextFailure = null;
    this.tasks.set(task.task_id, task);
    return task;
  }

  getTask(id: string): TaskRecord {
    const task = this.tasks.get(id.toLowerCase());
    if (!task) throw rowError(ERRORS.taskNotFound);
    this.settle(task);
    return task;
  }

  /** Tasks newest first, settled. */
  allTasks(): TaskRecord[] {
    const list = [...this.tasks.values()].sort((a, b) => a.seq - b.seq);
    for (const t of list) this.settle(t);
    return list.reverse();
  }

  cancel(task: TaskRecord): void {
    const v = timeline(task.created_ms, this.clock.stepMs(), this.clock.now(), task.failure);
    if (task.cancelled || (v.status !== 'pending' && v.status !== 'processing')) {
      throw rowError(ERRORS.taskNotCancellable);
    }
    task.cancelled = { at_ms: this.clock.now(), progress: v.progress, started_ms: v.started_ms };
  }

  view(task: TaskRecord) {
    const t = timeline(task.created_ms, this.clock.stepMs(), this.clock.now(), task.failure);
    const base = {
      task_id: task.task_id,
      inputs: task.inputs,
      created_at: iso(task.created_ms),
    };
    if (task.cancelled) {
      const c = task.cancelled;
      return {
        ...base,
        status: 'cancelled' as const,
        phase: null,
        progress: c.progress,
        error: null,
        updated_at: iso(c.at_ms),
        started_at: c.started_ms === null ? null : iso(c.started_ms),
        completed_at: iso(c.at_ms),
      };
    }
    return {
      ...base,
      status: t.status,
      phase: t.phase,
      progress: t.progress,
      error: t.status === 'failed' && task.failure ? { code: task.failure.code, message: task.failure.message } : null,
      updated_at: iso(t.changed_ms),
      started_at: t.started_ms === null ? null : iso(t.started_ms),
      completed_at: t.finished_ms === null ? null : iso(t.finished_ms),
    };
  }

  articlesOf(task: TaskRecord): ArticleRecord[] {
    if (!task.article_id) return [];
    const article = this.articles.get(task.article_id);
    return article ? [article] : [];
  }

  /** Articles newest first, every task settled first. */
  allArticles(): ArticleRecord[] {
    this.allTasks();
    return [...this.articles.values()].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.seq - a.seq);
  }

  getArticle(id: string): ArticleRecord {
    this.allTasks();
    const article = this.articles.get(id.toLowerCase());
    if (!article) throw rowError(ERRORS.articleNotFound);
    return article;
  }

  addArticle(taskId: string | null, written: ReturnType<typeof writeArticle>, at: string): ArticleRecord {
    this.seq += 1;
    const article: ArticleRecord = {
      seq: this.seq,
      article_id: this.ids().next('article'),
      task_id: taskId,
      ...written,
      slug: this.uniqueSlug(written.slug),
      publication_status: 'draft',
      published_at: null,
      version: 1,
      created_at: at,
      updated_at: at,
    };
    this.articles.set(article.article_id, article);
    return article;
  }

  update(article: ArticleRecord, patch: ArticleUpdateBody): ArticleRecord {
    const now = iso(this.clock.now());
    const { publication_status: status, slug, ...fields } = patch;
    Object.assign(article, fields);
    if (slug !== undefined && slug !== article.slug) article.slug = this.uniqueSlug(slug, article.article_id);
    if (status !== undefined && status !== article.publication_status) {
      if (status === 'published') article.published_at = now;
      if (status === 'draft') article.published_at = null;
      article.publication_status = status;
    }
    article.version += 1;
    article.updated_at = now;
    return article;
  }

  deleteArticle(article: ArticleRecord): void {
    this.articles.delete(article.article_id);
  }

  private settle(task: TaskRecord): void {
    if (task.cancelled || task.article_id) return;
    const t = timeline(task.created_ms, this.clock.stepMs(), this.clock.now(), task.failure);
    if (t.status !== 'completed') return;
    const article = this.addArticle(task.task_id, writeArticle(task.inputs, this.seed), iso(t.finished_ms ?? 0));
    task.article_id = article.article_id;
  }

  private uniqueSlug(slug: string, own?: string): string {
    const taken = new Set([...this.articles.values()].filter((a) => a.article_id !== own).map((a) => a.slug));
    let candidate = slug;
    for (let n = 2; taken.has(candidate); n++) candidate = `${slug}-${n}`;
    return candidate;
  }
}
