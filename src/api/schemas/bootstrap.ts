/** Project bootstrap service (second document): the phased pipeline and the v2 project status. No envelope. */
import * as z from 'zod';
import { resource, Timestamp, Uuid } from './common.js';

export const BOOTSTRAP_STATUSES = [
  'initializing',
  'initialized',
  'processing',
  'analyzed',
  'completed',
  'error',
] as const;
export const BootstrapStatus = z.enum(BOOTSTRAP_STATUSES);
export type BootstrapStatus = z.infer<typeof BootstrapStatus>;

/** The phase a failed bootstrap stopped in; retrying re-posts the step that starts it (decided). */
export const BOOTSTRAP_PHASES = ['initialize', 'prompt', 'analysis', 'complete'] as const;

export const BootstrapInitializeBody = z.strictObject({
  project_id: Uuid,
  brand_name: z.string().trim().min(1),
  url: z.string().min(1),
  country: z.string().optional(),
  language: z.string().optional(),
});
export type BootstrapInitializeBody = z.input<typeof BootstrapInitializeBody>;

export const BootstrapProjectBody = z.strictObject({ project_id: Uuid });
export type BootstrapProjectBody = z.input<typeof BootstrapProjectBody>;

/** Body of the three bootstrap step responses (decided): the project and the status it moved to. */
export const BootstrapStepResult = resource({ project_id: Uuid, status: BootstrapStatus });
export type BootstrapStepResult = z.infer<typeof BootstrapStepResult>;

export const BootstrapProject = resource({
  id: Uuid,
  team_id: Uuid.nullable(),
  name: z.string(),
  brand_name: z.string().nullable(),
  website_url: z.string().nullable(),
  country: z.string().nullable(),
  language: z.string().nullable(),
  status: BootstrapStatus,
  failed_phase: z.enum(BOOTSTRAP_PHASES).nullable().describe('set when status is error'),
  error: z.string().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
  generated: resource({ topics: z.int(), prompts: z.int(), competitors: z.int() })
    .optional()
    .describe('reference: what the last initialize and prompt phases produced'),
  history: z
    .array(resource({ status: BootstrapStatus, failed_phase: z.enum(BOOTSTRAP_PHASES).nullable(), at: Timestamp }))
    .optional()
    .describe('reference: every status the project moved through, oldest first, from either entry point'),
});
export type BootstrapProject = z.infer<typeof BootstrapProject>;
