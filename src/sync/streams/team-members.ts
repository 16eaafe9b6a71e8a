import { catalogue, Member, Team } from '../../api/index.js';
import { dataOf, dataRequest, defineStream, listRequest } from '../declare.js';
import { extraOf, nestExtra } from '../rows.js';
import type { TeamScope, UnitContext } from '../types.js';
import { teamParent } from './parents.js';

const NEEDS_USER = 'needs the user id of a team member (userId in vwh.config.json, --user-id or VWH_USER_ID)';

/**
 * GET /api/v2/teams/me then GET /api/v2/teams/{team_id}/members, both as the configured user (the team service
 * identifies its caller by `user_id`, not by the API key) → raw.team_members, the team's fields on every row.
 */
export const teamMembersStream = defineStream({
  name: 'team_members',
  grain: 'snapshot',
  parents: (_discovery, _settings, scope) => (scope.userId ? teamParent() : []),
  unavailable: (scope: TeamScope) => (scope.userId ? undefined : NEEDS_USER),
  requests: [
    // Without the team (drifted body) there is nothing to key the members on: the unit lands nothing and is asked again.
    dataRequest({
      endpoint: catalogue.getMyTeam,
      params: ({ ctx }) => ({ query: asUser(ctx) }),
      into: {},
      required: true,
      rows: () => ({}),
    }),
    listRequest({
      endpoint: catalogue.listMembers,
      each: (unit) => [dataOf(unit, catalogue.getMyTeam)].filter((t) => t !== undefined),
      params: ({ ctx }, team: Team) => ({ path: { team_id: team.team_id }, query: asUser(ctx) }),
      into: { 'raw.team_members': () => ({ equals: {} }) },
      item: Member,
      pick: (raw) => raw,
      row: (m, { slice: t }) => ({
        api_team_id: t.team_id,
        team_name: t.name,
        team_plan: t.plan,
        seat_limit: t.seat_limit,
        member_count: t.member_count,
        team_created_at: t.created_at,
        ...m,
        _extra: nestExtra(extraOf(m, Member), { team: extraOf(t, Team) }),
      }),
    }),
  ],
});

function asUser(ctx: UnitContext): { user_id: string } {
  return { user_id: ctx.scope.userId ?? '' };
}
