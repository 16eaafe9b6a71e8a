/** Team service (`/api/v2`): create a team, read it, list, add and remove members. */
import { defineEndpoint } from '../endpoint.js';
import { ERRORS } from '../errors.js';
import {
  AddMemberBody,
  CreateTeamBody,
  Member,
  MemberList,
  MemberRemoved,
  Team,
  TeamMemberParams,
  TeamParams,
  UserQuery,
} from '../schemas/teams.js';

const base = { service: 'teams', tag: 'teams', envelope: 'none' } as const;

export const teamEndpoints = {
  createTeam: defineEndpoint({
    ...base,
    id: 'createTeam',
    method: 'POST',
    path: '/create_team',
    summary: 'Create a team with the user as its admin.',
    body: CreateTeamBody,
    successStatus: 201,
    data: Team,
    errors: [ERRORS.invalidRequest],
  }),
  getMyTeam: defineEndpoint({
    ...base,
    id: 'getMyTeam',
    method: 'GET',
    path: '/teams/me',
    summary: 'The team of a user.',
    query: UserQuery,
    data: Team,
    errors: [ERRORS.invalidRequest, ERRORS.teamNotFound],
  }),
  listMembers: defineEndpoint({
    ...base,
    id: 'listMembers',
    method: 'GET',
    path: '/teams/{team_id}/members',
    summary: 'Members of a team (user_id must be one of them).',
    params: TeamParams,
    query: UserQuery,
    data: MemberList,
    errors: [ERRORS.invalidRequest, ERRORS.teamAccessDenied, ERRORS.teamNotFound],
  }),
  addMember: defineEndpoint({
    ...base,
    id: 'addMember',
    method: 'POST',
    path: '/teams/{team_id}/members',
    summary: 'Add a member (active when the email has an account, otherwise invited by email).',
    params: TeamParams,
    body: AddMemberBody,
    successStatus: 201,
    data: Member,
    errors: [
      ERRORS.invalidRequest,
      ERRORS.teamAccessDenied,
      ERRORS.teamNotFound,
      ERRORS.memberExists,
      ERRORS.emailInOtherTeam,
      ERRORS.seatLimit,
    ],
  }),
  removeMember: defineEndpoint({
    ...base,
    id: 'removeMember',
    method: 'DELETE',
    path: '/teams/{team_id}/members/{email}',
    summary: 'Remove a member (oneself or another); the last member cannot be removed.',
    params: TeamMemberParams,
    query: UserQuery,
    data: MemberRemoved,
    errors: [
      ERRORS.invalidRequest,
      ERRORS.teamAccessDenied,
      ERRORS.teamNotFound,
      ERRORS.memberNotFound,
      ERRORS.lastMember,
    ],
  }),
} as const;
