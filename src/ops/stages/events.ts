/**
 * Stage `events`: ingests the webhook journal of `vwh events listen` into raw.webhook_events (`events/ingest.ts`: bulk
 * loader, bounded batches, one row per event however often the journal is read or an event delivered), then confirms pending `project.bootstrap` callbacks with an
 * authenticated GET /projects/{id}, as the spec advises, with each configured key in turn: a key that reads the
 * project confirms it for its team (`team_id`; the sync that follows syncs it, even where the team lists its
 * `projects`), 404/403 with every key → rejected, anything else stays pending for the next run.
 */
import { ApiClient } from '../../client/api-client.js';
import { readKey } from '../../core/config.js';
import { isVwhError } from '../../core/errors.js';
import { ingestJournal } from '../events/ingest.js';
import { withOps } from '../ledger.js';
import { journalDirOf } from '../paths.js';
import type { RunContext, Stage, StageOutcome } from '../stage.js';

/** The team a row is stored for when no key confirmed it: the first team, or the single key's team (as the sync). */
function defaultTeam(ctx: RunContext): string {
  return ctx.config.teams?.[0]?.team ?? ctx.sync.team ?? process.env.VWH_TEAM ?? 'default';
}

interface Confirmer {
  team: string;
  client: ApiClient;
}

/** A client per key the sync uses (each team's, or the single key), with the team it syncs for; keys missing are left out. */
function confirmers(ctx: RunContext): Confirmer[] {
  const teams = ctx.config.teams ?? [undefined];
  return teams.flatMap((team) => {
    const baseUrl = team?.baseUrl ?? ctx.sync.baseUrl ?? process.env.VWH_BASE_URL ?? ctx.config.baseUrl;
    if (!baseUrl) return [];
    try {
      const apiKey = team
        ? readKey({ env: team.apiKeyEnv, file: team.apiKeyFile }, `team ${team.team}`)
        : readKey(ctx.sync.keyFile ? { file: ctx.sync.keyFile } : {}, 'the bootstrap confirmation');
      const client = new ApiClient({ baseUrl, apiKey, retries: 2, backoff: { minMs: 200, maxMs: 2000 } });
      return [{ team: team?.team ?? defaultTeam(ctx), client }];
    } catch {
      return [];
    }
  });
}

export const eventsStage: Stage = {
  name: 'events',
  needs: [],
  async run(ctx): Promise<StageOutcome> {
    const counts = { journaled: 0, new: 0, duplicate: 0, confirmed: 0, rejected: 0, pending: 0 };
    await withOps(ctx.dbPath, async (w) => {
      const run = { team_id: defaultTeam(ctx), _sync_run_id: ctx.runId, _extracted_at: new Date(ctx.clock.now()) };
      Object.assign(counts, await ingestJournal(w, journalDirOf(ctx.dbPath, ctx.config), run, ctx.logger));
      const pending = await w.session.all<{ event_key: string; project_id: string }>(
        "select event_key, project_id from raw.webhook_events where confirmation = 'pending' order by received_at",
      );
      if (pending.length === 0) return;
      const clients = confirmers(ctx);
      try {
        for (const p of pending) {
          const { verdict, team } = await confirmWithAny(clients, p.project_id);
          counts[verdict] += 1;
          if (verdict !== 'pending') {
            await w.session.run('update raw.webhook_events set confirmation = ?, team_id = ? where event_key = ?', [
              verdict,
              team ?? defaultTeam(ctx),
              p.event_key,
            ]);
          }
        }
      } finally {
        for (const c of clients) await c.client.close();
      }
    });
    return { status: 'succeeded', counts };
  },
};

/** Confirmed by the first key that reads the project; rejected when every key is refused (404/403); else pending. */
async function confirmWithAny(
  clients: readonly Confirmer[],
  projectId: string,
): Promise<{ verdict: 'confirmed' | 'rejected' | 'pending'; team?: string }> {
  let verdict: 'rejected' | 'pending' = clients.length > 0 ? 'rejected' : 'pending';
  for (const { team, client } of clients) {
    const answer = await confirm(client, projectId);
    if (answer === 'confirmed') return { verdict: answer, team };
    if (answer === 'pending') verdict = 'pending';
  }
  return { verdict };
}

async function confirm(client: ApiClient, projectId: string): Promise<'confirmed' | 'rejected' | 'pending'> {
  try {
    const result = await client.call('getProject', { path: { project_id: projectId } });
    return result.ok ? 'confirmed' : 'pending';
  } catch (error) {
    const status = isVwhError(error) ? error.details.status : undefined;
    if (status === 404 || status === 403) return 'rejected';
    return 'pending';
  }
}
