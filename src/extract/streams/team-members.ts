import { catalogue, Member, Team } from '../../api/index.js';
import { fetchList, fetchOne } from '../fetch.js';
import { extraOf, nestExtra } from '../rows.js';
import type { StreamDef, TeamScope } from '../types.js';
import { teamParent } from './parents.js';

const NEEDS_USER = 'needs the user id of a team member (userId in vwh.config.json, --user-id or VWH_USER_ID)';

/**
 * GET /api/v2/teams/me then GET /api/v2/teams/{team_id}/members, both as the configured user (the team service
 * identifies its caller by `user_id`, not by the API key) → raw.team_members, the team's fields on every row.
 */
export const teamMembersStream: StreamDef = {
  name: 'team_members',
  tables: ['raw.team_members'],
  grain: 'snapshot',
  parents: (_discovery, _settings, scope) => (scope.userId ? teamParent() : []),
  unavailable: (scope: TeamScope) => (scope.userId ? undefined : NEEDS_USER),
  estimate: () => 2,
  async fetch(ctx) {
    const user = { user_id: ctx.scope.userId ?? '' };
    const team = await fetchOne(ctx, catalogue.getMyTeam, { query: user });
    // Without the team (drifted body) there is nothing to key the members on: the unit lands nothing and is asked again.
    if (!team.data) return { loads: [], rejected: team.rejected };
    const t = team.data;
    const members = await fetchList(
      ctx,
      catalogue.listMembers,
      { path: { team_id: t.team_id }, query: user },
      Member,
      (raw) => raw,
    );
    const teamExtra = extraOf(t, Team);
    const rows = members.items.map((m) => ({
      api_team_id: t.team_id,
      team_name: t.name,
      team_plan: t.plan,
      seat_limit: t.seat_limit,
      member_count: t.member_count,
      team_created_at: t.created_at,
      ...m,
      _extra: nestExtra(extraOf(m, Member), { team: teamExtra }),
    }));
    return { loads: [{ table: 'raw.team_members', partition: { equals: {} }, rows }], rejected: members.rejected };
  },
};
