/**
 * The project bootstrap pipeline of POST /account/projects: every phase back to back (topics, prompts, initial
 * answers, competitor detection; research credits per prompt × provider), then the `project.bootstrap` callback
 * POSTed to `webhook_url` (unsigned; retried up to 3 times with 1 s, 2 s, 4 s backoff on the Clock), only where
 * http/outbound.ts allows (a refused target is recorded once, not retried).
 */
import { request } from 'undici';
import { outboundDispatcher, outboundTarget, refusalOf } from './http/outbound.js';
import type { ReferenceState } from './reference-state.js';
import { runAutoBootstrap } from './services/index.js';
import type { ProjectRecord } from './state/projects.js';

export function runBootstrap(state: ReferenceState, project: ProjectRecord): Promise<void> {
  if (!project.bootstrap) return Promise.resolve();
  // The phases themselves belong to the bootstrap state machine of src/reference/services (shared with the
  // /api/v1/bootstrap/* service); it writes the outcome into `project.bootstrap`.
  runAutoBootstrap(state, project);
  return deliverCallback(state, project);
}

const BACKOFF_MS = [1000, 2000, 4000];

async function deliverCallback(state: ReferenceState, project: ProjectRecord): Promise<void> {
  const boot = project.bootstrap;
  if (!boot?.webhook_url) return;
  const webhookUrl = boot.webhook_url;
  const body = {
    event: 'project.bootstrap',
    project_id: project.config.id,
    status: boot.status,
    error: boot.error,
    timestamp: state.nowIso(),
  };
  const text = JSON.stringify(body);
  const allowLoopback = state.servicesOptions.allowHttpLoopback;
  for (let attempt = 0; attempt <= BACKOFF_MS.length; attempt++) {
    boot.callback_attempts = attempt + 1;
    let status: number | null = null;
    let refused: string | null = null;
    const target = outboundTarget(webhookUrl, allowLoopback);
    if ('refused' in target) refused = target.refused;
    else {
      try {
        const res = await request(target.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'vwh-reference-server' },
          body: text,
          dispatcher: outboundDispatcher(allowLoopback),
          headersTimeout: 10_000,
          bodyTimeout: 10_000,
        });
        status = res.statusCode;
        await res.body.dump();
      } catch (error) {
        refused = refusalOf(error);
      }
    }
    state.callbacks.push({ url: webhookUrl, body, status, attempt: attempt + 1, ...(refused ? { refused } : {}) });
    if (refused) return;
    if (status !== null && status >= 200 && status < 300) {
      boot.callback_delivered = true;
      return;
    }
    const wait = BACKOFF_MS[attempt];
    if (wait === undefined) return;
    await state.clock.sleep(wait, state.background.signal).catch(() => undefined);
    if (state.background.signal.aborted) return;
  }
}
