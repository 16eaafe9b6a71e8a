/**
 * The team service's rules: create a team, read one's team, list, add and remove members. The caller is the
 * `user_id` given (authentication: not shown); access to a team is verified by that user being an active member.
 */
import { ERRORS } from '../../../api/index.js';
import { fail, rowError } from '../../net/http-error.js';
import type { Team } from '../../state/accounts.js';
import { normalizeEmail } from '../../state/accounts.js';
import type { MemberRecord, Membership } from './membership.js';
import { SEAT_LIMITS } from './seats.js';

export function teamView(membership: Membership, team: Team) {
  return {
    team_id: team.id,
    name: team.name,
    plan: team.plan,
    seat_limit: SEAT_LIMITS[team.plan],
    member_count: membership.members(team.id).length,
    created_at: team.created_at,
  };
}

export function memberView(m: MemberRecord) {
  return {
    user_id: m.user_id,
    email: m.email,
    name: m.user_id ? (m.email.split('@')[0] ?? null) : null,
    role: m.role,
    status: m.status,
    joined_at: m.joined_at,
  };
}

export class TeamRules {
  constructor(
    private readonly membership: Membership,
    private readonly now: () => string,
  ) {}

  create(userId: string) {
    const user = this.membership.findUser(userId);
    if (!user) throw rowError(ERRORS.invalidRequest, 'Invalid request: user_id: no account has this id');
    return teamView(this.membership, this.membership.createTeam(user, this.now()));
  }

  mine(userId: string) {
    const team = this.membership.teamsOf(userId)[0];
    if (!team) throw rowError(ERRORS.teamNotFound);
    return teamView(this.membership, team);
  }

  list(teamId: string, userId: string) {
    return this.access(teamId, userId).map(memberView);
  }

  add(teamId: string, userId: string, rawEmail: string) {
    const members = this.access(teamId, userId);
    const team = this.membership.team(teamId) as Team;
    const email = normalizeEmail(rawEmail);
    if (members.some((m) => m.email === email)) throw rowError(ERRORS.memberExists);
    if (this.membership.otherTeamsOf(email, team.id).length > 0) throw rowError(ERRORS.emailInOtherTeam);
    const limit = SEAT_LIMITS[team.plan];
    if (limit !== null && members.length >= limit) throw rowError(ERRORS.seatLimit);
    const user = this.membership.accountOf(email);
    const record = user
      ? this.membership.addActive(team.id, user, this.now())
      : this.membership.invite(team.id, email, this.now());
    return memberView(record);
  }

  /** Extension: the invited user accepts with the verification code of the invitation email. */
  accept(teamId: string, userId: string, code: string) {
    const team = this.membership.team(teamId);
    if (!team) throw rowError(ERRORS.teamNotFound);
    const user = this.membership.findUser(userId);
    const invitation = user ? this.membership.invitation(team.id, user.email) : undefined;
    if (!user || !invitation) throw fail(404, 'Invitation not found');
    if (invitation.code !== code.trim()) throw fail(403, 'Invalid verification code');
    if (this.membership.otherTeamsOf(user.email, team.id).length > 0) throw rowError(ERRORS.emailInOtherTeam);
    return memberView(this.membership.activate(invitation.record, user, this.now()));
  }

  remove(teamId: string, userId: string, rawEmail: string) {
    const members = this.access(teamId, userId);
    const email = normalizeEmail(rawEmail);
    const target = members.find((m) => m.email === email);
    if (!target) throw rowError(ERRORS.memberNotFound);
    const activeLeft = members.filter((m) => m.status === 'active' && m !== target).length;
    if (target.status === 'active' && activeLeft === 0) throw rowError(ERRORS.lastMember);
    this.membership.remove(teamId, email);
    return { team_id: teamId, email, removed: true as const };
  }

  /** The team's members, once the team exists (404) and the user is one of its active members (403). */
  private access(teamId: string, userId: string): MemberRecord[] {
    const team = this.membership.team(teamId);
    if (!team) throw rowError(ERRORS.teamNotFound);
    if (!this.membership.activeMember(team.id, userId)) throw rowError(ERRORS.teamAccessDenied);
    return this.membership.members(team.id);
  }
}
