/**
 * The project bootstrap pipeline of POST /account/projects: every phase back to back (topics, prompts, initial
 * answers, competitor detection; research credits per prompt × provider), then the `project.bootstrap` callback
 * POSTed to `webhook_url` by the server's one webhook sender (net/webhook-sender.ts: unsigned; retried up to 3
 * times with 1 s, 2 s, 4 s backoff on the Clock; only where net/outbound.ts allows, a refused target recorded once
 * and not retried).
 */
import { sendWebhook } from '../net/webhook-sender.js';
import type { ProjectRecord } from '../state/projects.js';
import type { ReferenceState } from './reference-state.js';

export function runBootstrap(state: ReferenceState, project: ProjectRecord): Promise<void> {
  if (!project.bootstrap) return Promise.resolve();
  // The phases themselves belong to the bootstrap state machine of src/reference/services (shared with the
  // /api/v1/bootstrap/* service); it writes the outcome into `project.bootstrap`.
  state.services.bootstrap.runAuto(project);
  return deliverCallback(state, project);
}

const BACKOFF_MS = [1000, 2000, 4000];
const TIMEOUT_MS = 10_000;

async function deliverCallback(state: ReferenceState, project: ProjectRecord): Promise<void> {
  const boot = project.bootstrap;
  if (!boot?.webhook_url) return;
  const url = boot.webhook_url;
  const body = {
    event: 'project.bootstrap',
    project_id: project.config.id,
    status: boot.status,
    error: boot.error,
    timestamp: state.nowIso(),
  };
  const delivered = await sendWebhook({
    target: () => ({ url }),
    body: JSON.stringify(body),
    backoffMs: BACKOFF_MS,
    timeoutMs: TIMEOUT_MS,
    allowLoopback: () => state.servicesOptions.allowHttpLoopback,
    clock: state.clock,
    signal: state.background.signal,
    onAttempt: ({ attempt, status, refused }) => {
      boot.callback_attempts = attempt;
      // A conditional spread: the control plane serves the callbacks as JSON, with refused only when refused.
      state.callbacks.push({ url, body, status, attempt, ...(refused ? { refused } : {}) });
    },
  });
  if (delivered) boot.callback_delivered = true;
}
