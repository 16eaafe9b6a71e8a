/**
 * Account endpoints (POST /account/create, /account/api-key, /account/projects): envelope B, snake_case.
 * Where the spec words a validation error, the schema's issue message is that wording, so a server that answers
 * a failed body with its first issue's message sends the spec's `detail`.
 */
import * as z from 'zod';
import { resource, Uuid } from './common.js';

const EMAIL_DETAIL = 'A valid email is required';

export const AccountCreateBody = z.strictObject({
  email: z.string({ error: EMAIL_DETAIL }).trim().regex(/@/, EMAIL_DETAIL),
  /** Accepted and ignored: the service generates the password. */
  password: z.string().optional(),
});
export type AccountCreateBody = z.input<typeof AccountCreateBody>;

export const AccountCreateResult = resource({
  user_id: Uuid,
  team_id: Uuid,
  email: z.string().describe('normalized (trimmed, lowercased)'),
  password: z.string().describe('generated; returned once'),
});
export type AccountCreateResult = z.infer<typeof AccountCreateResult>;

export const RateLimitTier = z.enum(['standard', 'premium']);
export type RateLimitTier = z.infer<typeof RateLimitTier>;

export const ApiKeyCreateBody = z.strictObject({
  email: z.string({ error: 'Invalid email or password' }),
  password: z.string({ error: 'Invalid email or password' }),
  team_id: Uuid.optional().describe('required when the admin manages several teams'),
});
export type ApiKeyCreateBody = z.input<typeof ApiKeyCreateBody>;

export const ApiKeyCreateResult = resource({
  api_key: z.string().describe('the full key, shown once'),
  team_id: Uuid,
  key_prefix: z.string().describe('first 12 characters of the key'),
  rate_limit_tier: RateLimitTier,
});
export type ApiKeyCreateResult = z.infer<typeof ApiKeyCreateResult>;

const httpUrl = (detail: string) => z.url({ protocol: /^https?$/, error: detail });

export const ProjectCreateBody = z.strictObject({
  brand_name: z.string({ error: 'brand_name is required' }).trim().min(1, 'brand_name is required'),
  brand_url: httpUrl('brand_url must be a valid URL'),
  webhook_url: httpUrl('webhook_url must be a valid URL'),
  language: z.string().optional().describe('e.g. a two-letter code'),
  location: z.string().optional().describe('country code'),
});
export type ProjectCreateBody = z.input<typeof ProjectCreateBody>;

export const ProjectCreateResult = resource({
  project_id: Uuid,
  status: z.literal('initializing'),
});
export type ProjectCreateResult = z.infer<typeof ProjectCreateResult>;
