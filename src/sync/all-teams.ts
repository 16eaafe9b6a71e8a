import { EXIT_INTERRUPTED, ExitCode, type ExitCodeValue, isVwhError, VwhError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import { vacuumIfDue } from '../warehouse/vacuum.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import type { ProgressSink } from './progress.js';
import { syncTeam } from './team-sync.js';
import type { TeamResult, TeamSyncOptions } from './types.js';

export interface TeamJob {
  teamId: string;
  baseUrl: string;
  apiKey: string;
  servicesBaseUrl?: string;
  userId?: string;
  projects?: readonly string[];
  rateShare?: number;
}

export interface MultiSyncResult {
  /** 130 (EXIT_INTERRUPTED) when a team was stopped by SIGINT/SIGTERM and none failed. */
  exitCode: ExitCodeValue | typeof EXIT_INTERRUPTED;
  /** Each team's result (for a team that failed, as far as it got) or error. */
  teams: Array<{ teamId: string; result?: TeamResult; error?: VwhError }>;
}

/**
 * Every key of the config at once, each on its own budget and its own DuckDB connection, into one warehouse.
 * Exit code: 3 if a key was refused, else 1 if a team failed, else 130 if one was stopped (SIGINT/SIGTERM), else 2 if
 * rows were rejected or projects skipped.
 */
export async function syncAll(
  warehouse: Warehouse,
  jobs: readonly TeamJob[],
  common: Omit<
    TeamSyncOptions,
    'warehouse' | 'teamId' | 'baseUrl' | 'apiKey' | 'projects' | 'servicesBaseUrl' | 'userId'
  >,
  logger: Logger,
  progress: ProgressSink,
): Promise<MultiSyncResult> {
  // Whether this sync's checkpoints compact the rows earlier nights deleted (src/warehouse/vacuum.ts).
  const vacuuming = await vacuumIfDue(warehouse.database.session);
  if (vacuuming.length > 0)
    logger.info('this sync vacuums: deleted rows have gathered', {
      tables: Object.fromEntries(vacuuming.map((t) => [t.table, t.dead])),
    });
  const started: Array<TeamResult | undefined> = jobs.map(() => undefined);
  const settled = await Promise.allSettled(
    jobs.map((job, i) =>
      syncTeam({
        ...common,
        warehouse,
        teamId: job.teamId,
        baseUrl: job.baseUrl,
        apiKey: job.apiKey,
        servicesBaseUrl: job.servicesBaseUrl,
        userId: job.userId,
        projects: job.projects,
        // A conditional spread: share: undefined would erase a share the common options carry.
        rate: { ...common.rate, ...(job.rateShare ? { share: job.rateShare } : {}) },
        logger: logger.child({ team: job.teamId }),
        progress,
        onResult: (result) => {
          started[i] = result;
        },
      }),
    ),
  );
  const teams: MultiSyncResult['teams'] = settled.map((s, i) => {
    const teamId = jobs[i]?.teamId ?? '?';
    if (s.status === 'fulfilled') return { teamId, result: s.value };
    const error = isVwhError(s.reason)
      ? s.reason
      : new VwhError('INTERNAL', s.reason instanceof Error ? s.reason.message : String(s.reason), { cause: s.reason });
    // the result as far as it got (its counts), when the team failed after it began
    const result = started[i];
    return result ? { teamId, result, error } : { teamId, error };
  });
  return { exitCode: exitCodeOf(teams), teams };
}

function exitCodeOf(teams: MultiSyncResult['teams']): MultiSyncResult['exitCode'] {
  if (teams.some((t) => t.error?.exitCode === ExitCode.auth)) return ExitCode.auth;
  if (teams.some((t) => t.error?.exitCode === ExitCode.dbLocked)) return ExitCode.dbLocked;
  if (teams.some((t) => t.error || t.result?.status === 'failed')) return ExitCode.failure;
  if (teams.some((t) => t.result?.status === 'interrupted')) return EXIT_INTERRUPTED;
  if (teams.some((t) => t.result?.status === 'partial')) return ExitCode.partial;
  return ExitCode.ok;
}
