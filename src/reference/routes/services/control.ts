/**
 * The services' switch on the control plane: failures the simulated services have no other reason to produce, so
 * that a client outside the process (a `vwh serve` user, a sync test) can reach LLM_ERROR, WORKFLOW_ERROR,
 * DATABASE_ERROR, a failed bootstrap phase and a failed workflow stage. HTTP- and TCP-level faults stay with the
 * server's fault injection (`PUT /_reference/faults`, whose path globs reach /api/v1 and /api/v2 too).
 *
 *   GET    /_reference/services/faults   → the switches as they are
 *   PUT    /_reference/services/faults   {content?: {next_failure?, storage_outage?}, bootstrap?: {next_failure?},
 *                                         workflows?: {next_failure?}} → the switches after the change
 *   DELETE /_reference/services/faults   → every switch off
 *
 * A `next_failure` applies once: to the next task created, the next run of that bootstrap phase, the next
 * production of that workflow stage. `null` clears it.
 */
import type { Hono } from 'hono';
import * as z from 'zod';
import { BOOTSTRAP_PHASES, TASK_PHASES } from '../../../api/index.js';
import type { Services } from '../../services/registry.js';
import { CHECKPOINTS } from '../../services/workflows/engine.js';

export const SERVICE_FAULTS_PATH = '/_reference/services/faults';

const FaultsBody = z.strictObject({
  content: z
    .strictObject({
      next_failure: z
        .strictObject({
          phase: z.enum(TASK_PHASES),
          code: z.enum(['LLM_ERROR', 'WORKFLOW_ERROR']),
          message: z.string().min(1).optional(),
        })
        .nullable()
        .optional(),
      storage_outage: z.boolean().optional(),
    })
    .optional(),
  bootstrap: z
    .strictObject({
      next_failure: z
        .strictObject({ phase: z.enum(BOOTSTRAP_PHASES), message: z.string().min(1).optional() })
        .nullable()
        .optional(),
    })
    .optional(),
  workflows: z
    .strictObject({
      next_failure: z
        .strictObject({ checkpoint: z.enum(CHECKPOINTS), message: z.string().min(1).optional() })
        .nullable()
        .optional(),
    })
    .optional(),
});

function describe(s: Services) {
  return {
    content: { next_failure: s.content.nextFailure, storage_outage: s.content.storageOutage },
    bootstrap: { next_failure: s.bootstrap.plannedFailure },
    workflows: { next_failure: s.workflows.plannedFailure },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: mounted on the reference server's root app
export function registerServiceControl(app: Hono<any>, services: () => Services): void {
  app.get(SERVICE_FAULTS_PATH, (c) => c.json(describe(services())));

  app.put(SERVICE_FAULTS_PATH, async (c) => {
    const text = await c.req.text();
    let raw: unknown;
    try {
      raw = text.trim() === '' ? {} : JSON.parse(text);
    } catch {
      return c.json({ detail: 'body: JSON object' }, 400);
    }
    const parsed = FaultsBody.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return c.json({ detail: `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}` }, 400);
    }
    const s = services();
    const { content, bootstrap, workflows } = parsed.data;
    if (content?.next_failure !== undefined) {
      const f = content.next_failure;
      s.content.nextFailure = f && {
        phase: f.phase,
        code: f.code,
        message: f.message ?? defaultTaskMessage(f.code, f.phase),
      };
    }
    if (content?.storage_outage !== undefined) s.content.storageOutage = content.storage_outage;
    if (bootstrap?.next_failure !== undefined) {
      const f = bootstrap.next_failure;
      s.bootstrap.plannedFailure = f && { phase: f.phase, message: f.message ?? `The ${f.phase} phase failed` };
    }
    if (workflows?.next_failure !== undefined) {
      const f = workflows.next_failure;
      s.workflows.plannedFailure = f && {
        checkpoint: f.checkpoint,
        message: f.message ?? `Producing the ${f.checkpoint} failed`,
      };
    }
    return c.json(describe(s));
  });

  app.delete(SERVICE_FAULTS_PATH, (c) => {
    const s = services();
    s.content.nextFailure = null;
    s.content.storageOutage = false;
    s.bootstrap.plannedFailure = null;
    s.workflows.plannedFailure = null;
    return c.json(describe(s));
  });
}

function defaultTaskMessage(code: 'LLM_ERROR' | 'WORKFLOW_ERROR', phase: string): string {
  return code === 'LLM_ERROR' ? `The language model failed during ${phase}` : `The ${phase} step failed`;
}
