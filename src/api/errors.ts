/**
 * Error bodies and the error rows of the specs.
 *
 * Public data API: `{detail: string}`; alias errors add a stable `code` (`{detail, code}`). Where the spec says
 * "none given", the `detail` below is this contract's decision (`given: false`): the reference serves it, the
 * client must not depend on its wording. Bootstrap and team services answer `{detail}` too. The content service
 * answers `{error: {code, message, details?}}` with the status of `CONTENT_ERROR_STATUS`.
 */
import * as z from 'zod';

/**
 * `{detail}`; `code` only on the alias errors. One schema for both shapes where a status mixes them (an alias
 * endpoint's 404 is `Project not found` or `ALIAS_NOT_FOUND`): the OpenAPI document then needs no `oneOf` whose
 * alternatives both match.
 */
export const ErrorBody = z.looseObject({
  detail: z.string(),
  code: z.string().optional().describe('alias errors only (ALIAS_EMPTY, ALIAS_TOO_LONG, …); absent on the others'),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const ALIAS_ERROR_CODES = [
  'ALIAS_EMPTY',
  'ALIAS_TOO_LONG',
  'ALIAS_NOT_FOUND',
  'ALIAS_DUPLICATE',
  'ALIAS_LIMIT_REACHED',
] as const;
export const AliasErrorCode = z.enum(ALIAS_ERROR_CODES);
export type AliasErrorCode = z.infer<typeof AliasErrorCode>;
/** Alias errors: `{detail, code}`; the client tolerates an unknown future code. */
export const AliasErrorBody = z.looseObject({
  detail: z.string(),
  code: z.string().describe(ALIAS_ERROR_CODES.join(' | ')),
});
export type AliasErrorBody = z.infer<typeof AliasErrorBody>;

export const CONTENT_ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  TASK_NOT_FOUND: 404,
  ARTICLE_NOT_FOUND: 404,
  RATE_LIMIT_ERROR: 429,
  WORKFLOW_ERROR: 500,
  DATABASE_ERROR: 503,
  LLM_ERROR: 502,
} as const;
export type ContentErrorCode = keyof typeof CONTENT_ERROR_STATUS;
export const ContentErrorBody = z.looseObject({
  error: z.looseObject({
    code: z.string(),
    message: z.string(),
    details: z.unknown().optional(),
  }),
});
export type ContentErrorBody = z.infer<typeof ContentErrorBody>;

/** Which error body an error row is sent with. */
export type ErrorShape = 'detail' | 'alias' | 'content';

/** One row of a spec's error table, as it applies to an endpoint. */
export interface ErrorRow {
  status: number;
  /** The `detail` text (for content errors: the `message`). */
  detail: string;
  /** Alias and content errors: the stable code. */
  code?: string;
  condition: string;
  /** True when the spec gives this text; false when this contract decided it ("none given"). */
  given: boolean;
  shape: ErrorShape;
  /** Sent with `Retry-After` and the `X-RateLimit-*` and `X-Credit-Available` headers (the key's rate limit). */
  rateLimitHeaders?: true;
}

function row(status: number, detail: string, condition: string, given: boolean): ErrorRow {
  return { status, detail, condition, given, shape: 'detail' };
}
function aliasRow(status: number, code: AliasErrorCode, detail: string, condition: string): ErrorRow {
  return { status, detail, code, condition, given: true, shape: 'alias' };
}
function contentRow(code: ContentErrorCode, detail: string, condition: string): ErrorRow {
  return { status: CONTENT_ERROR_STATUS[code], detail, code, condition, given: false, shape: 'content' };
}

/** `Rate limit exceeded. Retry after N seconds.`, sent with header `Retry-After: N`. */
export function rateLimitDetail(seconds: number): string {
  return `Rate limit exceeded. Retry after ${seconds} seconds.`;
}
/**
 * The largest request body any service reads (1 MiB). The limit stands for a gateway in front of every service, so
 * its 413 is `{detail}` on all four.
 */
export const MAX_BODY_BYTES = 1024 * 1024;
export function bodyTooLargeDetail(maxBytes: number): string {
  return `Request body too large: the limit is ${maxBytes} bytes`;
}
/** The spec gives only the beginning of this text; the rest is this contract's wording. */
export function projectLimitDetail(limit: number): string {
  return `You have reached the maximum number of projects for your plan (${limit}).`;
}

export const ERRORS = {
  // Authentication and rate limit: every authenticated endpoint.
  missingKey: row(401, 'Missing X-API-Key header', 'no header', true),
  invalidKey: row(401, 'Invalid API key', 'key not recognized', true),
  inactiveKey: row(401, 'API key is inactive', 'disabled key', true),
  expiredKey: row(401, 'API key has expired', 'expired key', true),
  rateLimited: {
    ...row(429, rateLimitDetail(60), 'rate limit; header Retry-After present (N = its value)', true),
    rateLimitHeaders: true,
  },
  // Account.
  badCredentials: row(401, 'Invalid email or password', 'POST /account/api-key', true),
  noAdminTeam: row(403, 'No admin team found for this user', 'caller is not a team admin', true),
  teamIdRequired: row(400, 'team_id is required', 'admin manages several teams', true),
  authUnavailable: row(500, 'Authentication service unavailable', 'temporary', true),
  invalidEmail: row(400, 'A valid email is required', 'email empty or lacks @', true),
  emailTaken: row(409, 'Failed to create account. The email may already be registered.', 'existing email', true),
  brandNameRequired: row(400, 'brand_name is required', 'project create', true),
  brandUrlInvalid: row(400, 'brand_url must be a valid URL', 'project create', true),
  webhookUrlInvalid: row(400, 'webhook_url must be a valid URL', 'project create', true),
  projectLimit: row(403, projectLimitDetail(1), 'plan project limit (text after the opening words decided)', false),
  // Project access: every endpoint under /projects/{project_id}.
  foreignProject: row(403, 'Project does not belong to your team', 'foreign project', true),
  projectNotFound: row(404, 'Project not found', 'unknown project', true),
  // Request validation the spec leaves unworded (bad query or body shape).
  invalidRequest: row(400, 'Invalid request', 'body or query fails the schema (the detail lists the issues)', false),
  bodyTooLarge: row(413, bodyTooLargeDetail(MAX_BODY_BYTES), 'request body over 1 MiB (every service)', false),
  dateRangeInvalid: row(400, 'date_from must not be after date_to', 'date_from > date_to', false),
  // Prompts.
  overviewPromptType: row(400, "prompt_type must be 'active' or 'suggested'", 'overview', true),
  promptCreateInvalid: row(
    400,
    'prompts must hold 1-50 non-empty texts and topicId is required',
    'prompt create: empty array, whitespace-only content, missing topicId',
    false,
  ),
  promptDuplicate: row(409, 'A prompt with this content already exists in the project', 'prompt create', false),
  promptQuota: row(429, 'Prompt quota exceeded for your plan', 'prompt create: plan quota', false),
  promptUpdateInvalid: row(400, 'Nothing to update', 'prompt update: empty body, blank content, no change', false),
  promptNotFound: row(404, 'Prompt not found', 'prompt not in project', false),
  suggestInvalid: row(400, 'Invalid request', 'suggested generation: count outside 1-50, unknown method', false),
  urlRecsInvalid: row(400, 'urls must hold 1-5 URLs', 'URL recommendation: urls/count out of bounds', false),
  // Actions.
  actionNotFound: row(404, 'Action not found', 'action not found in project', false),
  actionInvalid: row(400, 'Invalid action', 'missing fields; invalid category, priority or execution type', false),
  enrichInvalid: row(400, 'action_type is missing or invalid', 'enrich: missing or invalid action_type', false),
  // Competitors.
  competitorCreateInvalid: row(
    400,
    'Invalid competitors',
    'competitor create: empty array, empty name, invalid website, duplicate domain in request',
    false,
  ),
  competitorDomainTaken: row(409, 'A competitor with this domain already exists', 'competitor create', false),
  competitorLimit: row(429, 'Active competitor limit (10) reached', 'competitor create', false),
  competitorUpdateInvalid: row(
    400,
    'Nothing to update',
    'competitor update: empty body, blank name, invalid website, no change',
    false,
  ),
  competitorNotFound: row(404, 'Competitor not found', 'competitor not in project', false),
  competitorStateInvalid: row(400, "state must be 'active' or 'inactive'", 'competitor review: bad state', false),
  competitorNotPending: row(409, 'Competitor is not pending', 'competitor review: not pending', false),
  // Aliases.
  aliasEmpty: aliasRow(400, 'ALIAS_EMPTY', 'Alias must not be empty', 'invalid alias text'),
  aliasTooLong: aliasRow(400, 'ALIAS_TOO_LONG', 'Alias must be at most 100 characters', 'invalid alias text'),
  aliasNotFound: aliasRow(404, 'ALIAS_NOT_FOUND', 'Alias not found', 'alias absent'),
  aliasDuplicate: aliasRow(409, 'ALIAS_DUPLICATE', 'Alias already exists', 'case-insensitive duplicate'),
  aliasLimit: aliasRow(429, 'ALIAS_LIMIT_REACHED', 'Alias limit (20) reached', '20 aliases already'),
  // Recorded URLs.
  recordingInvalid: row(400, 'urls must hold 1-50 items', 'recording add/remove: bad body', false),
  // Webhooks.
  webhookInvalid: row(
    400,
    'Invalid webhook',
    'webhook create: missing url, non-HTTPS URL, empty events, invalid event type',
    false,
  ),
  webhookDuplicate: row(409, 'Webhook URL already registered', 'webhook URL already registered', false),
  readOnlyKey: row(403, 'This API key is read-only', 'read-only key on webhook create or delete', false),
  webhookNotFound: row(404, 'Webhook not found', 'webhook not found', false),
  // Bootstrap service (second document; `{detail}`).
  bootstrapNotInitialized: row(409, 'Project must be initialized', 'bootstrap prompt: project not initialized', false),
  bootstrapNotAnalyzed: row(409, 'Project must be analyzed', 'bootstrap complete: project not analyzed', false),
  bootstrapRunning: row(409, 'Project bootstrap is already running', 'bootstrap initialize: a phase is running', false),
  bootstrapProjectNotFound: row(404, 'Project not found', 'unknown project', false),
  // Team service (second document; `{detail}`).
  seatLimit: row(429, 'Seat limit reached for your plan', 'member add: plan seat limit', true),
  emailInOtherTeam: row(409, 'This email already belongs to another team', 'member add: email in another team', true),
  teamAccessDenied: row(403, 'You are not a member of this team', 'user_id not a member of the team', false),
  teamNotFound: row(404, 'Team not found', 'unknown team, or user has no team', false),
  memberNotFound: row(404, 'Member not found', 'member delete: email not in team', false),
  lastMember: row(409, 'The last remaining member cannot be removed', 'member delete: last member', false),
  memberExists: row(409, 'This email is already a member of the team', 'member add: already a member', false),
  // Content service (second document; `{error: {code, message}}`).
  contentValidation: contentRow('VALIDATION_ERROR', 'Invalid input parameters', 'invalid input parameters'),
  taskNotFound: contentRow('TASK_NOT_FOUND', 'Task not found', 'task missing or not accessible'),
  taskNotCancellable: contentRow('VALIDATION_ERROR', 'Task cannot be cancelled', 'cancel: task not pending/processing'),
  articleNotFound: contentRow('ARTICLE_NOT_FOUND', 'Article not found', 'article missing or not accessible'),
  contentRateLimit: contentRow('RATE_LIMIT_ERROR', 'Too many concurrent requests', 'too many concurrent requests'),
  contentDatabase: contentRow('DATABASE_ERROR', 'Storage error', 'storage error'),
  contentLlm: contentRow('LLM_ERROR', 'Model error during generation', 'articles of a task that failed: model error'),
  contentWorkflow: contentRow(
    'WORKFLOW_ERROR',
    'Pipeline step failed',
    'articles of a task that failed: pipeline step',
  ),
} as const satisfies Record<string, ErrorRow>;
export type ErrorName = keyof typeof ERRORS;

/** The body a server sends for an error row; `detail` overrides the row's text (e.g. the rate-limit seconds). */
export function errorBody(errorRow: ErrorRow, detail: string = errorRow.detail): unknown {
  if (errorRow.shape === 'content') return { error: { code: errorRow.code, message: detail } };
  if (errorRow.shape === 'alias') return { detail, code: errorRow.code };
  return { detail };
}

/** The schema an error body of this shape parses with. */
export function errorSchema(shape: ErrorShape): z.ZodType {
  if (shape === 'content') return ContentErrorBody;
  if (shape === 'alias') return AliasErrorBody;
  return ErrorBody;
}

export const AUTH_ERRORS: readonly ErrorRow[] = [
  ERRORS.missingKey,
  ERRORS.invalidKey,
  ERRORS.inactiveKey,
  ERRORS.expiredKey,
  ERRORS.rateLimited,
];
export const PROJECT_ERRORS: readonly ErrorRow[] = [ERRORS.foreignProject, ERRORS.projectNotFound];
