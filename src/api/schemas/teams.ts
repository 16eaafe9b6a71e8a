/**
 * Team service (second document). No envelope; the caller is identified by `user_id` (authentication: not shown).
 */
import * as z from 'zod';
import { resource, Timestamp, Uuid } from './common.js';

export const PLANS = ['skip_trial', 'basic', 'pro', 'enterprise'] as const;

export const Team = resource({
  team_id: Uuid,
  name: z.string(),
  plan: z.string().describe('skip_trial, basic, pro or enterprise'),
  seat_limit: z.int().nullable().describe('null when unlimited'),
  member_count: z.int(),
  created_at: Timestamp,
});
export type Team = z.infer<typeof Team>;

export const MemberRole = z.enum(['admin', 'member']);
export const MemberStatus = z.enum(['active', 'invited']);

export const Member = resource({
  user_id: Uuid.nullable().describe('null while an invitation is pending'),
  email: z.string(),
  name: z.string().nullable(),
  role: MemberRole,
  status: MemberStatus,
  joined_at: Timestamp.nullable().describe('null while invited'),
});
export type Member = z.infer<typeof Member>;
export const MemberList = z.array(Member);

export const UserQuery = z.object({ user_id: Uuid });
export const CreateTeamBody = z.strictObject({ user_id: Uuid });
export const AddMemberBody = z.strictObject({
  user_id: Uuid.describe('the requester'),
  email: z.string().trim().regex(/@/, 'A valid email is required'),
});
export type AddMemberBody = z.input<typeof AddMemberBody>;

export const MemberRemoved = resource({ team_id: Uuid, email: z.string(), removed: z.literal(true) });

export const TeamParams = z.object({ team_id: Uuid });
export const TeamMemberParams = z.object({ team_id: Uuid, email: z.string().min(1) });
