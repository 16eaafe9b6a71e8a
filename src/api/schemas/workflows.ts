/**
 * The action-workflow extension of the public API (envelope A, snake_case). The spec names the execute workflow of
 * `new_content` actions and its webhook events, not how it starts or how a checkpoint is answered; the reference
 * adds POST .../actions/{action_id}/execute, GET .../workflows/{workflow_id} and POST .../workflows/{workflow_id}/
 * checkpoint (docs/reference-services.md). Not in the catalogue: the catalogue lists the specs' endpoints only.
 */
import * as z from 'zod';
import { resource, Timestamp, Uuid } from './common.js';
import { CHECKPOINT_OPTION_ACTIONS } from './webhooks.js';

export const WORKFLOW_STATUSES = ['running', 'awaiting_checkpoint', 'completed', 'failed'] as const;
/** The spec's "outline, draft or final review". */
export const WORKFLOW_CHECKPOINTS = ['outline', 'draft', 'final_review'] as const;
export const WorkflowCheckpoint = z.enum(WORKFLOW_CHECKPOINTS);

export const CheckpointAnswerBody = z.strictObject({
  action: z.enum(CHECKPOINT_OPTION_ACTIONS),
  content: z.string().optional().describe('the edited text; required by edit'),
  checkpoint: WorkflowCheckpoint.optional().describe('guard: answered only if the workflow waits at this checkpoint'),
});
export type CheckpointAnswerBody = z.input<typeof CheckpointAnswerBody>;

export const WorkflowDeliveryAttempt = resource({
  attempt: z.int().min(1),
  at: Timestamp,
  status: z.int().nullable().describe('the receiver status; null when it did not answer'),
  error: z.string().nullable(),
});

export const WorkflowDeliveryRecord = resource({
  delivery_id: Uuid.describe('X-Webhook-Delivery-Id: the same on every attempt'),
  webhook_id: z.string(),
  event: z.string(),
  delivered: z.boolean(),
  done: z.boolean().describe('no further attempt will be made'),
  attempts: z.array(WorkflowDeliveryAttempt),
});

export const Workflow = resource({
  workflow_id: Uuid,
  action_id: Uuid,
  project_id: Uuid,
  status: z.enum(WORKFLOW_STATUSES),
  checkpoint: WorkflowCheckpoint.nullable(),
  content: z.string().nullable().describe('what is reviewed at the current checkpoint'),
  options: z.array(resource({ action: z.string(), label: z.string() })),
  answers: z.array(
    resource({ checkpoint: WorkflowCheckpoint, answer: z.enum(CHECKPOINT_OPTION_ACTIONS), at: Timestamp }),
  ),
  result: resource({ title: z.string(), content: z.string(), article_id: Uuid }).nullable(),
  error: z.string().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
  deliveries: z.array(WorkflowDeliveryRecord),
});
export type Workflow = z.infer<typeof Workflow>;
