/**
 * Content-generation service (second document): article-generation tasks and the articles they produce.
 * No envelope; snake_case. The fields beyond those the spec names are this contract's decisions
 * (docs/reference-decisions.md).
 */
import * as z from 'zod';
import { pageQueryShape, queryInt, resource, Timestamp, Uuid } from './common.js';

export const TASK_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled'] as const;
export const TaskStatus = z.enum(TASK_STATUSES);
export type TaskStatus = z.infer<typeof TaskStatus>;

/** Pipeline phases in order (decided names for the steps the spec lists). */
export const TASK_PHASES = [
  'web_research',
  'reference_extraction',
  'file_processing',
  'outline',
  'drafting',
  'seo_optimization',
] as const;
export const TaskPhase = z.enum(TASK_PHASES);

export const FILE_TYPES = ['pdf', 'docx', 'csv', 'xlsx', 'txt'] as const;
export const UploadedFile = resource({
  file_name: z.string().min(1),
  file_type: z.enum(FILE_TYPES),
  size_bytes: z.int().min(0).optional(),
  url: z.string().optional().describe('where the service can fetch the file'),
});
export type UploadedFile = z.infer<typeof UploadedFile>;

/** Bounds the spec does not show on file metadata (decided, docs/reference-decisions.md). */
export const MAX_UPLOADED_FILES = 10;
export const MAX_FILE_NAME_LENGTH = 255;
export const MAX_FILE_SIZE_BYTES = 50 * 1024 * 1024;
export const MAX_KEYWORD_LENGTH = 100;
export const MAX_LINK_LENGTH = 2048;

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(MAX_LINK_LENGTH);

/** File metadata as a task create accepts it: the spec's types, in lower or upper case (the task keeps lower case). */
export const UploadedFileInput = z.strictObject({
  file_name: z.string().trim().min(1).max(MAX_FILE_NAME_LENGTH),
  file_type: z.enum([
    ...FILE_TYPES,
    ...FILE_TYPES.map((t) => t.toUpperCase() as Uppercase<(typeof FILE_TYPES)[number]>),
  ]),
  size_bytes: z.int().min(0).max(MAX_FILE_SIZE_BYTES).optional(),
  url: httpUrl.optional().describe('where the service can fetch the file'),
});

const wordCount = z.int().min(100).max(10_000);

export const TaskCreateBody = z
  .strictObject({
    user_prompt: z
      .string()
      .min(1)
      .max(1000)
      .refine((text) => text.trim() !== '', 'user_prompt must not be blank'),
    keywords: z.array(z.string().trim().min(1).max(MAX_KEYWORD_LENGTH)).max(10).optional(),
    reference_links: z.array(httpUrl).max(5).optional(),
    uploaded_files: z.array(UploadedFileInput).max(MAX_UPLOADED_FILES).optional(),
    min_words: wordCount.optional(),
    max_words: wordCount.optional(),
  })
  .refine((body) => body.min_words === undefined || body.max_words === undefined || body.min_words <= body.max_words, {
    message: 'min_words must not exceed max_words',
    path: ['min_words'],
  });
export type TaskCreateBody = z.input<typeof TaskCreateBody>;

export const TaskInputs = resource({
  user_prompt: z.string(),
  keywords: z.array(z.string()),
  reference_links: z.array(z.string()),
  uploaded_files: z.array(UploadedFile),
  min_words: z.int().nullable(),
  max_words: z.int().nullable(),
});

export const TaskError = resource({ code: z.string(), message: z.string() });

export const Task = resource({
  task_id: Uuid,
  status: TaskStatus,
  phase: TaskPhase.nullable().describe('current pipeline step; null while pending and once finished'),
  progress: z.int().min(0).max(100).describe('percent'),
  inputs: TaskInputs,
  error: TaskError.nullable().describe('set when failed: LLM_ERROR, WORKFLOW_ERROR, ...'),
  created_at: Timestamp,
  updated_at: Timestamp,
  started_at: Timestamp.nullable(),
  completed_at: Timestamp.nullable().describe('when it reached completed, failed or cancelled'),
});
export type Task = z.infer<typeof Task>;

export const TaskCreated = resource({ task_id: Uuid, status: z.literal('pending') });
export type TaskCreated = z.infer<typeof TaskCreated>;

export const TaskListQuery = z.object({
  status: TaskStatus.optional(),
  limit: queryInt().min(1).max(100).default(20),
  offset: queryInt().min(0).default(0),
});
export type TaskListQuery = z.output<typeof TaskListQuery>;

export const TaskList = resource({
  tasks: z.array(Task),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});
export type TaskList = z.infer<typeof TaskList>;

export const PUBLICATION_STATUSES = ['draft', 'published', 'archived'] as const;
export const PublicationStatus = z.enum(PUBLICATION_STATUSES);

export const FeaturedImage = resource({ url: z.string(), alt: z.string().nullable() });
export const DataSource = resource({ title: z.string().nullable(), url: z.string() });

export const Article = resource({
  article_id: Uuid,
  task_id: Uuid.nullable(),
  title: z.string(),
  content: z.string().describe('Markdown'),
  slug: z.string(),
  seo_title: z.string().nullable(),
  seo_description: z.string().nullable(),
  keywords: z.array(z.string()),
  featured_images: z.array(FeaturedImage),
  data_sources: z.array(DataSource),
  publication_status: PublicationStatus,
  published_at: Timestamp.nullable().describe('set when published'),
  version: z.int().min(1).describe('starts at 1; each PATCH adds 1'),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Article = z.infer<typeof Article>;

export const TaskArticles = resource({ task_id: Uuid, articles: z.array(Article) });

export const ArticleListQuery = z.object({
  publication_status: PublicationStatus.optional(),
  ...pageQueryShape(20, 100),
});
export type ArticleListQuery = z.output<typeof ArticleListQuery>;

export const ArticleList = resource({
  articles: z.array(Article),
  page: z.int(),
  page_size: z.int(),
  total: z.int(),
});
export type ArticleList = z.infer<typeof ArticleList>;

export const ArticleUpdateBody = z
  .strictObject({
    title: z.string().min(1),
    content: z.string(),
    slug: z.string().min(1),
    seo_title: z.string(),
    seo_description: z.string(),
    keywords: z.array(z.string()),
    publication_status: PublicationStatus,
  })
  .partial()
  .refine((body) => Object.keys(body).length > 0, 'at least one field is required');
export type ArticleUpdateBody = z.input<typeof ArticleUpdateBody>;

export const ArticleDeleted = resource({ article_id: Uuid, deleted: z.literal(true) });

export const TaskParams = z.object({ task_id: Uuid });
export const ArticleParams = z.object({ article_id: Uuid });
