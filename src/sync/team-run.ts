/** The run's record in ops.sync_runs: its start (with what discovery rejected) and its end, with the status decided. */
import type { WarehouseSession } from '../warehouse/warehouse.js';
import type { Discovery, StreamDef, SyncSettings, TeamResult, TeamStatus, TeamSyncOptions } from './types.js';

/** Opens the run's record (closing the team's abandoned ones) and records the projects discovery quarantined. */
export async function startRun(
  ws: WarehouseSession,
  runId: string,
  options: TeamSyncOptions,
  settings: SyncSettings,
  selected: readonly StreamDef[],
  discovery: Discovery,
  result: TeamResult,
): Promise<void> {
  const { teamId } = options;
  const counters = result.counters;
  await ws.runs.markAbandoned(teamId);
  await ws.runs.start(runId, teamId, options.baseUrl, {
    today: settings.today,
    streams: selected.map((s) => s.name),
    projects: options.projects ?? null,
    fullRefresh: Boolean(options.fullRefresh),
    lookbackDays: settings.lookbackDays,
    since: settings.since ?? null,
    until: settings.until ?? null,
  });
  // Projects quarantined by discovery belong to this run: recorded now that it exists (partial, exit 2).
  for (const r of discovery.rejected) {
    await ws.runs.reject({
      runId,
      teamId,
      stream: 'projects',
      parentId: 'team',
      unitKey: 'discovery',
      endpoint: r.endpoint,
      payload: r.payload,
      issues: r.issues,
    });
  }
  if (discovery.rejected.length > 0) {
    counters.rejectedRows += discovery.rejected.length;
    result.rejectedByStream.projects = (result.rejectedByStream.projects ?? 0) + discovery.rejected.length;
  }
  // --full-refresh keeps the state: each of its units replaces its rows in its own transaction, so the state still
  // tells which days hold rows when the refresh is interrupted, and the next sync deletes before it lands them.
  // (Forgetting it at the start made the next sync append the days the refresh had not reached onto their old rows.)
}

/** A run stopped by SIGINT/SIGTERM (or a caller's stop): the units fetched in full landed, the rest did not. */
export const INTERRUPTED = { code: 'INTERRUPTED', message: 'the sync was stopped' };

/** The team's status once its units have run: failed units fail it; rejected rows or unreachable projects make it partial. */
export function decideStatus(
  result: TeamResult,
  discovery: Discovery,
  interrupted: boolean,
): { status: Exclude<TeamStatus, 'planned'>; error: { code: string; message: string } | undefined } {
  if (interrupted) return { status: 'interrupted', error: INTERRUPTED };
  // Units stopped because the API broke its contract (endless paging) make the run partial, as rejected rows do:
  // asking again does not help until the API is fixed, and everything else landed.
  if (result.failedUnits.length > 0 && result.failedUnits.every((f) => f.code === 'API_CONTRACT')) {
    return {
      status: 'partial',
      error: {
        code: 'API_CONTRACT',
        message: `${result.failedUnits.length} units stopped: ${result.failedUnits[0]?.error}`,
      },
    };
  }
  if (result.failedUnits.length > 0) {
    return {
      status: 'failed',
      error: {
        code: 'UNITS_FAILED',
        message: `${result.failedUnits.length} units failed: ${result.failedUnits[0]?.error}`,
      },
    };
  }
  const partial = result.counters.rejectedRows > 0 || discovery.unreachable.length > 0;
  return { status: partial ? 'partial' : 'succeeded', error: undefined };
}
