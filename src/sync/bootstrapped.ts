/**
 * Projects created with vwh's receiver as their `webhook_url`, whose `project.bootstrap` callback a run confirmed with
 * an authenticated request (raw.webhook_events, confirmation `confirmed`, team_id the team whose key read it). A team
 * that syncs every project finds them by listing; a team whose config lists its `projects` gets them added, since a
 * project made to call vwh back is one the user wants synced. `vwh sync --projects` (a selection for that one command)
 * is left as given.
 */
import type { Logger } from '../core/log.js';
import type { Session } from '../warehouse/session.js';
import type { TeamJob } from './all-teams.js';

export async function addBootstrappedProjects(session: Session, jobs: TeamJob[], logger: Logger): Promise<void> {
  if (!jobs.some((job) => job.projects)) return;
  const confirmed = await session.all<{ team_id: string; project_id: string }>(
    `select distinct team_id, project_id from raw.webhook_events
      where event = 'project.bootstrap' and confirmation = 'confirmed' and project_id is not null
      order by team_id, project_id`,
  );
  for (const job of jobs) {
    const listed = job.projects;
    if (!listed) continue;
    const added = confirmed
      .filter((row) => row.team_id === job.teamId && !listed.includes(row.project_id))
      .map((row) => row.project_id);
    if (added.length === 0) continue;
    job.projects = [...listed, ...added];
    logger.info('bootstrapped projects added to the projects the config lists', { team: job.teamId, projects: added });
  }
}
