/**
 * Team service: create a team, the caller's team, members list/add/remove (rules in teams/rules.ts), and the
 * extension POST /api/v2/teams/{team_id}/invitations/accept `{user_id, code}` → 200 the member, now active.
 */
import type { Hono } from 'hono';
import * as z from 'zod';
import { ERRORS, Uuid } from '../../../api/index.js';
import { route } from '../../http/route.js';
import { rowError } from '../../net/http-error.js';
import type { ReferenceState } from '../../server/reference-state.js';

// biome-ignore lint/suspicious/noExplicitAny: mounted on the reference server's root app
export function registerTeamRoutes(app: Hono<any>, state: ReferenceState): void {
  const rules = () => state.services.teams;
  const opts = { badParams: ERRORS.teamNotFound };
  route(app, state, 'createTeam', ({ body }) => rules().create(body.user_id));
  route(app, state, 'getMyTeam', ({ query }) => rules().mine(query.user_id));
  route(app, state, 'listMembers', ({ params, query }) => rules().list(params.team_id, query.user_id), opts);
  route(app, state, 'addMember', ({ params, body }) => rules().add(params.team_id, body.user_id, body.email), opts);
  route(
    app,
    state,
    'removeMember',
    ({ params, query }) => rules().remove(params.team_id, query.user_id, params.email),
    opts,
  );

  app.post('/api/v2/teams/:team_id/invitations/accept', async (c) => {
    const teamId = Uuid.safeParse(c.req.param('team_id'));
    if (!teamId.success) throw rowError(ERRORS.teamNotFound);
    const body = AcceptBody.safeParse(await c.req.json().catch(() => null));
    if (!body.success) throw rowError(ERRORS.invalidRequest, 'Invalid request: user_id (UUID) and code are required');
    return c.json(rules().accept(teamId.data, body.data.user_id, body.data.code));
  });
}

const AcceptBody = z.strictObject({ user_id: Uuid, code: z.string().min(1) });
