/**
 * Team membership of the team service: who is in which team, and the invitations sent to emails without an
 * account. Teams and users themselves live in the reference server's `Accounts`; a team's first members are the
 * users whose account names it, imported the first time the team is looked at.
 */
import { createHash } from 'node:crypto';
import type { Accounts, Team, User } from '../../state/accounts.js';
import { normalizeEmail } from '../../state/accounts.js';

export interface MemberRecord {
  user_id: string | null;
  email: string;
  role: 'admin' | 'member';
  status: 'active' | 'invited';
  joined_at: string | null;
  /** Order of joining, for "the team a user joined last". */
  seq: number;
}

export interface Invitation {
  team_id: string;
  email: string;
  /** The verification code the invitation email carries (six digits, derived from the seed). */
  code: string;
  sent_at: string;
}

export class Membership {
  private readonly byTeam = new Map<string, MemberRecord[]>();
  private seq = 0;
  /** The invitation emails "sent" (the reference sends no mail; tests and demos read this outbox). */
  readonly outbox: Invitation[] = [];

  constructor(
    private readonly accounts: Accounts,
    private readonly seed: number,
  ) {}

  findUser(userId: string): User | undefined {
    const id = userId.toLowerCase();
    for (const user of this.accounts.usersByEmail.values()) if (user.id === id) return user;
    return undefined;
  }

  accountOf(email: string): User | undefined {
    return this.accounts.usersByEmail.get(normalizeEmail(email));
  }

  team(teamId: string): Team | undefined {
    return this.accounts.teams.get(teamId.toLowerCase());
  }

  members(teamId: string): MemberRecord[] {
    let list = this.byTeam.get(teamId);
    if (!list) {
      list = [];
      for (const user of this.accounts.usersByEmail.values()) {
        const own = user.memberships.find((m) => m.team_id === teamId);
        if (!own) continue;
        // Members from the account store count as having joined first (seq 0).
        const record = this.record(
          user,
          own.role === 'admin' ? 'admin' : 'member',
          this.team(teamId)?.created_at ?? null,
        );
        list.push({ ...record, seq: 0 });
      }
      this.byTeam.set(teamId, list);
    }
    return list;
  }

  activeMember(teamId: string, userId: string): MemberRecord | undefined {
    return this.members(teamId).find((m) => m.status === 'active' && m.user_id === userId.toLowerCase());
  }

  /** Teams where the user is an active member, last joined first. */
  teamsOf(userId: string): Team[] {
    const id = userId.toLowerCase();
    const found: Array<{ team: Team; seq: number }> = [];
    for (const team of this.accounts.teams.values()) {
      const m = this.members(team.id).find((r) => r.status === 'active' && r.user_id === id);
      if (m) found.push({ team, seq: m.seq });
    }
    return found.sort((a, b) => b.seq - a.seq || b.team.created_at.localeCompare(a.team.created_at)).map((f) => f.team);
  }

  /** Teams other than `teamId` where the email is a member and not alone (a one-person team is a personal workspace). */
  otherTeamsOf(email: string, teamId: string): Team[] {
    const out: Team[] = [];
    for (const team of this.accounts.teams.values()) {
      if (team.id === teamId) continue;
      const list = this.members(team.id);
      if (list.length > 1 && list.some((m) => m.email === email)) out.push(team);
    }
    return out;
  }

  createTeam(user: User, createdAt: string): Team {
    const team = this.accounts.createTeam(`${user.email} team`, 'skip_trial', createdAt);
    this.byTeam.set(team.id, [this.record(user, 'admin', createdAt)]);
    return team;
  }

  addActive(teamId: string, user: User, joinedAt: string): MemberRecord {
    const record = this.record(user, 'member', joinedAt);
    this.members(teamId).push(record);
    return record;
  }

  invite(teamId: string, email: string, sentAt: string): MemberRecord {
    const address = normalizeEmail(email);
    const code = (Number.parseInt(digest(`${this.seed}|invite|${teamId}|${address}`).slice(0, 8), 16) % 1_000_000)
      .toString()
      .padStart(6, '0');
    this.outbox.push({ team_id: teamId, email: address, code, sent_at: sentAt });
    this.seq += 1;
    const record: MemberRecord = {
      user_id: null,
      email: address,
      role: 'member',
      status: 'invited',
      joined_at: null,
      seq: this.seq,
    };
    this.members(teamId).push(record);
    return record;
  }

  /** The invitation of this email in this team, with the code that was sent, if any. */
  invitation(teamId: string, email: string): { record: MemberRecord; code: string } | undefined {
    const record = this.members(teamId).find((m) => m.status === 'invited' && m.email === email);
    const mail = [...this.outbox].reverse().find((m) => m.team_id === teamId && m.email === email);
    return record && mail ? { record, code: mail.code } : undefined;
  }

  /** Turns an invitation into an active membership of the user. */
  activate(record: MemberRecord, user: User, joinedAt: string): MemberRecord {
    this.seq += 1;
    Object.assign(record, { user_id: user.id, status: 'active', joined_at: joinedAt, seq: this.seq });
    return record;
  }

  remove(teamId: string, email: string): void {
    this.byTeam.set(
      teamId,
      this.members(teamId).filter((m) => m.email !== email),
    );
  }

  private record(user: User, role: MemberRecord['role'], joinedAt: string | null): MemberRecord {
    this.seq += 1;
    return { user_id: user.id, email: user.email, role, status: 'active', joined_at: joinedAt, seq: this.seq };
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
