/**
 * `vwh run` with a `cluster` section: queues tonight's job for every team of the config (with the run's options),
 * then, unless `noWait`, follows them to the end, printing each team's progress and a summary. Returns `vwh run`'s
 * exit code for the night (night.ts). Nothing is run on this machine: the workers run the teams.
 */
import { type ClusterSettings, redactUrl } from '../../core/cluster-config.js';
import type { SyncConfig } from '../../core/config.js';
import { VwhError } from '../../core/errors.js';
import { jsonLine, type Logger } from '../../core/log.js';
import { newRunId } from '../pipeline.js';
import { EXIT_INTERRUPTED } from '../stage.js';
import { openCluster } from './connect.js';
import { formatNightSummary, nightExitCode, queueNight, waitNight } from './night.js';
import type { NightRunOptions } from './team-night.js';

export interface ClusterRunOptions {
  config: SyncConfig;
  settings: ClusterSettings;
  options: NightRunOptions;
  noWait?: boolean;
  json: boolean;
  out: NodeJS.WritableStream;
  logger: Logger;
  stop?: AbortSignal;
  pollMs?: number;
}

export function clusterTeams(config: SyncConfig): string[] {
  const teams = config.teams?.map((t) => t.team) ?? [];
  if (teams.length === 0) {
    throw new VwhError(
      'CONFIG_INVALID',
      'A cluster runs the teams of the config: list them in "teams" (each with its key), one job per team and night.',
    );
  }
  return teams;
}

export async function runClusterNight(o: ClusterRunOptions): Promise<number> {
  const teams = clusterTeams(o.config);
  const write = (line: string, fields: Record<string, unknown> = {}) =>
    o.out.write(o.json ? jsonLine('info', line, fields) : `${line}\n`);
  const cluster = await openCluster(o.settings, { logger: o.logger });
  try {
    const nightId = newRunId(Date.now());
    const night = await queueNight(cluster, nightId, teams, 'manual', o.options);
    if (!night) throw new VwhError('INTERNAL', `night ${nightId} was queued twice`);
    write(`night ${nightId}: queued ${teams.length} team(s) on ${redactUrl(o.settings.url)}`, {
      night: nightId,
      teams,
      already_queued: night.jobs.filter((j) => j.existing).map((j) => j.team),
    });
    if (o.noWait) return 0;
    const outcomes = await waitNight(cluster, night, write, {
      logger: o.logger,
      ...(o.pollMs ? { pollMs: o.pollMs } : {}),
      ...(o.stop ? { stop: o.stop } : {}),
    });
    if (o.stop?.aborted) {
      write(`stopped following night ${nightId}: its jobs go on in the cluster (vwh status shows them)`);
      return EXIT_INTERRUPTED;
    }
    const exitCode = nightExitCode(outcomes);
    o.out.write(
      o.json
        ? jsonLine(exitCode === 0 ? 'info' : 'error', 'night summary', {
            night: nightId,
            exit_code: exitCode,
            teams: outcomes.map((t) => ({
              team: t.team,
              state: t.state,
              status: t.status,
              exit_code: t.exitCode,
              attempts: t.attempts,
              host: t.host,
              pid: t.pid,
              duration_ms: t.durationMs,
              error: t.error,
            })),
          })
        : formatNightSummary(nightId, outcomes),
    );
    return exitCode;
  } finally {
    await cluster.close();
  }
}
