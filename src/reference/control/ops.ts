/**
 * Control-plane operations, usable in-process (tests) or through `/_reference/` (routes/control.ts). None of
 * them exists in the real service.
 */

import { DAY_MS } from '../../core/days.js';
import { registerSecret } from '../../core/errors.js';
import { fail } from '../net/http-error.js';
import type { ReferenceState } from '../server/reference-state.js';
import type { ApiKeyRecord, Role, Tier } from '../state/accounts.js';
import { PLANS, type Plan } from '../state/plans.js';

export function clockNow(state: ReferenceState): { now: string; today: string } {
  return { now: state.sim.iso(), today: state.sim.today() };
}

/** Moves the simulated clock forward; background work that falls due runs at once. */
export function advanceClock(state: ReferenceState, by: { days?: number; seconds?: number }): { now: string } {
  const ms = (by.days ?? 0) * DAY_MS + (by.seconds ?? 0) * 1000;
  if (!Number.isFinite(ms) || ms < 0) throw fail(400, 'advance_days / advance_seconds must be >= 0');
  state.sim.advance(ms);
  state.background.runDue();
  return { now: state.sim.iso() };
}

function keyRecord(state: ReferenceState, apiKey: unknown): ApiKeyRecord {
  const record = typeof apiKey === 'string' ? state.accounts.findKey(apiKey) : undefined;
  if (!record) throw fail(404, 'Unknown api_key');
  return record;
}

function keyInfo(record: ApiKeyRecord) {
  return {
    key_prefix: record.prefix,
    team_id: record.team_id,
    role: record.role,
    tier: record.tier,
    status: record.status,
    expires_at: record.expires_at === null ? null : new Date(record.expires_at).toISOString(),
  };
}

export interface KeyChange {
  status?: 'active' | 'inactive';
  /** ISO timestamp on the simulated clock, or null to clear. */
  expires_at?: string | null;
  /** Shortcut: expire the key now. */
  expired?: boolean;
  tier?: Tier;
  role?: Role;
}

export function updateKey(state: ReferenceState, apiKey: string, change: KeyChange) {
  const record = keyRecord(state, apiKey);
  if (change.status !== undefined) {
    if (change.status !== 'active' && change.status !== 'inactive') throw fail(400, 'status: active|inactive');
    record.status = change.status;
  }
  if (change.tier !== undefined) {
    if (change.tier !== 'standard' && change.tier !== 'premium') throw fail(400, 'tier: standard|premium');
    record.tier = change.tier;
  }
  if (change.role !== undefined) {
    if (change.role !== 'admin' && change.role !== 'viewer') throw fail(400, 'role: admin|viewer');
    record.role = change.role;
  }
  if (change.expired === true) record.expires_at = state.sim.now() - 1000;
  if (change.expires_at !== undefined) {
    const at = change.expires_at === null ? null : Date.parse(change.expires_at);
    if (at !== null && Number.isNaN(at)) throw fail(400, 'expires_at must be an ISO timestamp or null');
    record.expires_at = at;
  }
  return keyInfo(record);
}

/** A new key for the team of `apiKey` (or `teamId`): a viewer key by default. */
export function mintKey(
  state: ReferenceState,
  opts: { apiKey?: string; teamId?: string; role?: Role; tier?: Tier },
): { api_key: string } & ReturnType<typeof keyInfo> {
  const teamId = opts.apiKey !== undefined ? keyRecord(state, opts.apiKey).team_id : opts.teamId;
  if (!teamId || !state.accounts.teams.has(teamId)) throw fail(404, 'Unknown team');
  const { key, record } = state.accounts.mintKey(teamId, {
    role: opts.role ?? 'viewer',
    tier: opts.tier ?? 'standard',
    createdAt: state.nowIso(),
  });
  registerSecret(key);
  return { api_key: key, ...keyInfo(record) };
}

export function setFaults(state: ReferenceState, spec: string | null) {
  try {
    state.faults.set(spec);
  } catch (error) {
    throw fail(400, error instanceof Error ? error.message : String(error));
  }
  return state.faults.describe();
}

export function setTeamPlan(state: ReferenceState, teamId: string, plan: string) {
  const team = state.accounts.teams.get(teamId);
  if (!team) throw fail(404, 'Unknown team');
  if (!PLANS.includes(plan as Plan)) throw fail(400, `plan: ${PLANS.join('|')}`);
  team.plan = plan as Plan;
  return { team_id: team.id, plan: team.plan, credits_available: state.accounts.creditsAvailable(team, state.month()) };
}

/** Adds (or changes) a user's membership of a team: how a user comes to manage several teams, or none. */
export function setMembership(state: ReferenceState, email: string, teamId: string, role: Role) {
  const user = state.accounts.usersByEmail.get(email.trim().toLowerCase());
  if (!user) throw fail(404, 'Unknown user');
  if (!state.accounts.teams.has(teamId)) throw fail(404, 'Unknown team');
  const existing = user.memberships.find((m) => m.team_id === teamId);
  if (existing) existing.role = role;
  else user.memberships.push({ team_id: teamId, role });
  return { user_id: user.id, memberships: user.memberships };
}

export function setAuthOutage(state: ReferenceState, enabled: boolean) {
  state.authOutage = enabled;
  return { auth_outage: enabled };
}

export function resetState(state: ReferenceState) {
  state.reset();
  return { reset: true, now: state.sim.iso() };
}

export function bootstrapStatus(state: ReferenceState, projectId: string) {
  const project = state.projects.get(projectId);
  if (!project) throw fail(404, 'Unknown project');
  return { project_id: projectId, ...(project.bootstrap ?? { status: null }) };
}
