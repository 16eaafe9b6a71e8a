/** Teams, users and API keys. Only a key's sha256 hash and its 12-character prefix are stored. */
import type { IdSource } from './ids.js';
import { randomToken, sha256 } from './ids.js';
import type { Plan } from './plans.js';
import { PLAN_LIMITS } from './plans.js';

export type Role = 'admin' | 'viewer';
export type Tier = 'standard' | 'premium';

export interface Team {
  id: string;
  name: string;
  plan: Plan;
  created_at: string;
  /** Credits used per calendar month of the simulated clock (`YYYY-MM`). */
  creditsUsed: Map<string, number>;
}

export interface User {
  id: string;
  email: string;
  passwordHash: string;
  memberships: Array<{ team_id: string; role: Role }>;
}

export interface ApiKeyRecord {
  id: string;
  hash: string;
  prefix: string;
  team_id: string;
  user_id: string | null;
  tier: Tier;
  role: Role;
  status: 'active' | 'inactive';
  /** ms since epoch on the simulated clock, or null (never expires). */
  expires_at: number | null;
  created_at: string;
}

export const KEY_PREFIX_LENGTH = 12;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export class Accounts {
  readonly teams = new Map<string, Team>();
  readonly usersByEmail = new Map<string, User>();
  readonly keysByHash = new Map<string, ApiKeyRecord>();

  constructor(private readonly ids: IdSource) {}

  createTeam(name: string, plan: Plan, createdAt: string): Team {
    const team: Team = {
      id: this.ids.next('team'),
      name,
      plan,
      created_at: createdAt,
      creditsUsed: new Map(),
    };
    this.teams.set(team.id, team);
    return team;
  }

  createUser(email: string, password: string, teamId: string): User {
    const user: User = {
      id: this.ids.next('user'),
      email: normalizeEmail(email),
      passwordHash: sha256(password),
      memberships: [{ team_id: teamId, role: 'admin' }],
    };
    this.usersByEmail.set(user.email, user);
    return user;
  }

  checkPassword(user: User, password: string): boolean {
    return user.passwordHash === sha256(password);
  }

  /** Creates a key and returns the full key once; only its hash is kept. */
  mintKey(teamId: string, opts: { role?: Role; tier?: Tier; userId?: string | null; createdAt: string; key?: string }) {
    const key = opts.key ?? `vwh_${randomToken(40)}`;
    const record: ApiKeyRecord = {
      id: this.ids.next('key'),
      hash: sha256(key),
      prefix: key.slice(0, KEY_PREFIX_LENGTH),
      team_id: teamId,
      user_id: opts.userId ?? null,
      tier: opts.tier ?? 'standard',
      role: opts.role ?? 'admin',
      status: 'active',
      expires_at: null,
      created_at: opts.createdAt,
    };
    this.keysByHash.set(record.hash, record);
    return { key, record };
  }

  findKey(key: string): ApiKeyRecord | undefined {
    return this.keysByHash.get(sha256(key));
  }

  creditsAvailable(team: Team, month: string): number {
    return Math.max(0, PLAN_LIMITS[team.plan].monthlyCredits - (team.creditsUsed.get(month) ?? 0));
  }

  /** Spends credits if enough remain; returns whether it did. */
  spendCredits(team: Team, month: string, amount: number): boolean {
    if (this.creditsAvailable(team, month) < amount) return false;
    team.creditsUsed.set(month, (team.creditsUsed.get(month) ?? 0) + amount);
    return true;
  }
}
