/** Account endpoints (envelope B): create an account, create an API key, create a project (202 + bootstrap). */
import type { Hono } from 'hono';
import { ERRORS, projectLimitDetail } from '../../api/index.js';
import type { ApiEnv } from '../http/env.js';
import { route } from '../http/route.js';
import { rowError } from '../net/http-error.js';
import { outboundTarget } from '../net/outbound.js';
import { runBootstrap } from '../server/bootstrap-pipeline.js';
import type { ReferenceState } from '../server/reference-state.js';
import { normalizeEmail } from '../state/accounts.js';
import { randomToken } from '../state/ids.js';
import { PLAN_LIMITS } from '../state/plans.js';

export function registerAccounts(api: Hono<ApiEnv>, state: ReferenceState): void {
  route(
    api,
    state,
    'createAccount',
    ({ body }) => {
      if (state.authOutage) throw rowError(ERRORS.authUnavailable);
      const email = normalizeEmail(body.email);
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw rowError(ERRORS.invalidEmail);
      if (state.accounts.usersByEmail.has(email)) throw rowError(ERRORS.emailTaken);
      const team = state.accounts.createTeam(`${email} team`, 'skip_trial', state.nowIso());
      const password = randomToken(20);
      const user = state.accounts.createUser(email, password, team.id);
      return { user_id: user.id, team_id: team.id, email, password };
    },
    { invalidBody: ERRORS.invalidEmail },
  );

  route(
    api,
    state,
    'createApiKey',
    ({ body }) => {
      if (state.authOutage) throw rowError(ERRORS.authUnavailable);
      const user = state.accounts.usersByEmail.get(normalizeEmail(body.email));
      if (!user || !state.accounts.checkPassword(user, body.password)) throw rowError(ERRORS.badCredentials);
      const adminTeams = user.memberships.filter((m) => m.role === 'admin').map((m) => m.team_id);
      if (adminTeams.length === 0) throw rowError(ERRORS.noAdminTeam);
      let teamId = adminTeams[0] as string;
      if (body.team_id !== undefined) {
        teamId = body.team_id.toLowerCase();
        if (!adminTeams.includes(teamId)) throw rowError(ERRORS.noAdminTeam);
      } else if (adminTeams.length > 1) {
        throw rowError(ERRORS.teamIdRequired);
      }
      const { key, record } = state.accounts.mintKey(teamId, { userId: user.id, createdAt: state.nowIso() });
      return { api_key: key, team_id: teamId, key_prefix: record.prefix, rate_limit_tier: record.tier };
    },
    { invalidBody: ERRORS.badCredentials },
  );

  route(api, state, 'createProject', ({ c, body }) => {
    const team = c.get('team');
    const target = outboundTarget(body.webhook_url, state.servicesOptions.allowHttpLoopback);
    if ('refused' in target) {
      throw rowError(ERRORS.webhookUrlInvalid, `webhook_url must be a valid URL: ${target.refused}`);
    }
    const limit = PLAN_LIMITS[team.plan].maxProjects;
    if (state.projects.ofTeam(team.id).length >= limit) throw rowError(ERRORS.projectLimit, projectLimitDetail(limit));
    const str = (v: string | undefined) => (v && v.trim() !== '' ? v.trim() : null);
    const project = state.projects.add(
      {
        id: state.ids.next('project'),
        team_id: team.id,
        name: body.brand_name,
        brand_name: body.brand_name,
        website_url: body.brand_url,
        location: str(body.location)?.toUpperCase() ?? null,
        language: str(body.language)?.toLowerCase() ?? null,
        created_at: state.nowIso(),
        aliases: [],
        competitors: [],
        topics: [],
        prompts: [],
        actions: [],
      },
      {
        bootstrap: {
          status: 'initializing',
          webhook_url: body.webhook_url,
          error: null,
          failed_phase: null,
          updated_at: state.nowIso(),
          callback_attempts: 0,
          callback_delivered: false,
        },
      },
    );
    state.background.schedule(() => runBootstrap(state, project));
    return { project_id: project.config.id, status: 'initializing' };
  });
}
