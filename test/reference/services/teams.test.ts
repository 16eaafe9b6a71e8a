/** Team service over HTTP: create, teams/me, members list/add/remove with the spec's rules. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, expectDetail, expectServed, type Harness, startHarness } from './support.js';

describe('team service', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ demo: false });
  });
  afterAll(() => h.close());

  it('creates a team whose admin is the user, and teams/me answers the last team joined', async () => {
    const ana = await createAccount(h, 'ana@example.com');
    const mine = expectServed('getMyTeam', await h.call('GET', `/api/v2/teams/me?user_id=${ana.user_id}`));
    expect(mine.team_id).toBe(ana.team_id);
    expect(mine).toMatchObject({ plan: 'skip_trial', seat_limit: 2, member_count: 1 });

    const created = expectServed('createTeam', await h.call('POST', '/api/v2/create_team', { user_id: ana.user_id }));
    expect(created.team_id).not.toBe(ana.team_id);
    expect(created.member_count).toBe(1);
    const members = expectServed(
      'listMembers',
      await h.call('GET', `/api/v2/teams/${created.team_id}/members?user_id=${ana.user_id}`),
    );
    expect(members).toEqual([
      expect.objectContaining({ user_id: ana.user_id, email: 'ana@example.com', role: 'admin', status: 'active' }),
    ]);
    expect(members[0].joined_at).toBe(created.created_at);
    expect((await h.call('GET', `/api/v2/teams/me?user_id=${ana.user_id}`)).body.team_id).toBe(created.team_id);
  });

  it('rejects bad input and unknown users', async () => {
    expectDetail(await h.call('POST', '/api/v2/create_team', { user_id: 'nope' }), 400, /^Invalid request/);
    expectDetail(
      await h.call('POST', '/api/v2/create_team', { user_id: '11111111-1111-4111-8111-111111111111' }),
      400,
      /no account/,
    );
    expectDetail(await h.call('GET', '/api/v2/teams/me'), 400, /^Invalid request/);
    expectDetail(
      await h.call('GET', '/api/v2/teams/me?user_id=11111111-1111-4111-8111-111111111111'),
      404,
      'Team not found',
    );
  });

  it('adds an account holder at once and invites an email without an account', async () => {
    const owner = await createAccount(h, 'owner1@example.com');
    const bob = await createAccount(h, 'bob@example.com');
    const added = expectServed(
      'addMember',
      await h.call('POST', `/api/v2/teams/${owner.team_id}/members`, {
        user_id: owner.user_id,
        email: ' Bob@Example.com ',
      }),
    );
    expect(added).toMatchObject({ user_id: bob.user_id, email: 'bob@example.com', status: 'active', role: 'member' });
    expect(added.joined_at).not.toBeNull();
    // Bob now sees the team he joined, and may list its members.
    expect((await h.call('GET', `/api/v2/teams/me?user_id=${bob.user_id}`)).body.team_id).toBe(owner.team_id);
    expect((await h.call('GET', `/api/v2/teams/${owner.team_id}/members?user_id=${bob.user_id}`)).status).toBe(200);

    const team = (await h.call('POST', '/api/v2/create_team', { user_id: owner.user_id })).body;
    const invited = expectServed(
      'addMember',
      await h.call('POST', `/api/v2/teams/${team.team_id}/members`, {
        user_id: owner.user_id,
        email: 'new@example.com',
      }),
    );
    expect(invited).toEqual({
      user_id: null,
      email: 'new@example.com',
      name: null,
      role: 'member',
      status: 'invited',
      joined_at: null,
    });
    const mail = h.services().membership.outbox.find((m) => m.email === 'new@example.com');
    expect(mail?.team_id).toBe(team.team_id);
    expect(mail?.code).toMatch(/^\d{6}$/);
  });

  it('answers 409 for a member already there and for an email of another team, 429 at the seat limit', async () => {
    const owner = await createAccount(h, 'owner2@example.com');
    const path = `/api/v2/teams/${owner.team_id}/members`;
    expectDetail(
      await h.call('POST', path, { user_id: owner.user_id, email: 'owner2@example.com' }),
      409,
      'This email is already a member of the team',
    );
    // bob@example.com belongs to owner1's team (two members): another team.
    expectDetail(
      await h.call('POST', path, { user_id: owner.user_id, email: 'bob@example.com' }),
      409,
      'This email already belongs to another team',
    );
    expect((await h.call('POST', path, { user_id: owner.user_id, email: 'guest1@example.com' })).status).toBe(201);
    // skip_trial: 2 seats, invitations included.
    expectDetail(
      await h.call('POST', path, { user_id: owner.user_id, email: 'guest2@example.com' }),
      429,
      'Seat limit reached for your plan',
    );
    expectDetail(await h.call('POST', path, { user_id: owner.user_id, email: 'no-at-sign' }), 400);
  });

  it('checks in the documented order on a full team: already a member 409, other team 409, then seats 429', async () => {
    const owner = await createAccount(h, 'order-owner@example.com');
    const path = `/api/v2/teams/${owner.team_id}/members`;
    const add = (email: string) => h.call('POST', path, { user_id: owner.user_id, email });
    expect((await add('order-guest@example.com')).status).toBe(201);
    // Full now (skip_trial: 2 seats). Carol belongs to another team of two members (a real team).
    const other = await createAccount(h, 'order-other@example.com');
    const carol = await createAccount(h, 'order-carol@example.com');
    const otherPath = `/api/v2/teams/${other.team_id}/members`;
    expect((await h.call('POST', otherPath, { user_id: other.user_id, email: carol.email })).status).toBe(201);
    expectDetail(await add('order-guest@example.com'), 409, 'This email is already a member of the team');
    expectDetail(await add(carol.email), 409, 'This email already belongs to another team');
    // Dave has only his sign-up team (a personal workspace, not "another team"): the seat limit answers.
    const dave = await createAccount(h, 'order-dave@example.com');
    expectDetail(await add(dave.email), 429, 'Seat limit reached for your plan');
    expectDetail(await add('order-nobody@example.com'), 429, 'Seat limit reached for your plan');
    // The other order: a team with a free seat still refuses Carol (other team) and admits Dave.
    const roomy = await createAccount(h, 'order-roomy@example.com');
    const roomyAdd = (email: string) =>
      h.call('POST', `/api/v2/teams/${roomy.team_id}/members`, { user_id: roomy.user_id, email });
    expectDetail(await roomyAdd(carol.email), 409, 'This email already belongs to another team');
    expect((await roomyAdd(dave.email)).status).toBe(201);
  });

  it("follows the team's plan: 5 seats on basic, unlimited on enterprise", async () => {
    const owner = await createAccount(h, 'owner5@example.com');
    const path = `/api/v2/teams/${owner.team_id}/members`;
    const add = (email: string) => h.call('POST', path, { user_id: owner.user_id, email });
    expect((await h.call('POST', `/_reference/teams/${owner.team_id}/plan`, { plan: 'basic' })).status).toBe(200);
    const team = expectServed('getMyTeam', await h.call('GET', `/api/v2/teams/me?user_id=${owner.user_id}`));
    expect(team).toMatchObject({ plan: 'basic', seat_limit: 5 });
    for (let i = 1; i <= 4; i++) expect((await add(`seat${i}@example.com`)).status).toBe(201);
    expectDetail(await add('seat5@example.com'), 429, 'Seat limit reached for your plan');
    // Removing an invitation frees its seat.
    expect((await h.call('DELETE', `${path}/seat4%40example.com?user_id=${owner.user_id}`)).status).toBe(200);
    expect((await add('seat5@example.com')).status).toBe(201);

    await h.call('POST', `/_reference/teams/${owner.team_id}/plan`, { plan: 'enterprise' });
    expect((await h.call('GET', `/api/v2/teams/me?user_id=${owner.user_id}`)).body).toMatchObject({
      seat_limit: null,
      member_count: 5,
    });
    for (let i = 6; i <= 8; i++) expect((await add(`seat${i}@example.com`)).status).toBe(201);
    expect((await h.call('GET', `${path}?user_id=${owner.user_id}`)).body).toHaveLength(8);
  });

  it('needs user_id on every member call', async () => {
    const owner = await createAccount(h, 'owner6@example.com');
    const path = `/api/v2/teams/${owner.team_id}/members`;
    expectDetail(await h.call('GET', path), 400, /^Invalid request/);
    expectDetail(await h.call('GET', `${path}?user_id=nope`), 400, /^Invalid request/);
    expectDetail(await h.call('POST', path, { email: 'x@example.com' }), 400, /^Invalid request/);
    expectDetail(await h.call('POST', path, { user_id: owner.user_id }), 400, /^Invalid request/);
    expectDetail(await h.call('DELETE', `${path}/owner6%40example.com`), 400, /^Invalid request/);
    expect((await h.call('GET', `${path}?user_id=${owner.user_id}`)).body).toHaveLength(1);
  });

  it('verifies access by user_id: 403 for a non-member, 404 for an unknown team', async () => {
    const owner = await createAccount(h, 'owner3@example.com');
    const stranger = await createAccount(h, 'stranger@example.com');
    const members = `/api/v2/teams/${owner.team_id}/members`;
    expectDetail(
      await h.call('GET', `${members}?user_id=${stranger.user_id}`),
      403,
      'You are not a member of this team',
    );
    expectDetail(await h.call('POST', members, { user_id: stranger.user_id, email: 'x@example.com' }), 403);
    expectDetail(await h.call('DELETE', `${members}/owner3%40example.com?user_id=${stranger.user_id}`), 403);
    expectDetail(
      await h.call('GET', `/api/v2/teams/11111111-1111-4111-8111-111111111111/members?user_id=${owner.user_id}`),
      404,
      'Team not found',
    );
    expectDetail(await h.call('GET', `/api/v2/teams/not-a-uuid/members?user_id=${owner.user_id}`), 404);
  });

  it('removes members (oneself or another) but never the last one', async () => {
    const owner = await createAccount(h, 'owner4@example.com');
    const carol = await createAccount(h, 'carol@example.com');
    const members = `/api/v2/teams/${owner.team_id}/members`;
    await h.call('POST', members, { user_id: owner.user_id, email: 'carol@example.com' });
    expectDetail(
      await h.call('DELETE', `${members}/ghost%40example.com?user_id=${owner.user_id}`),
      404,
      'Member not found',
    );
    // Carol removes the owner; then Carol is the last member and cannot remove herself.
    const removed = expectServed(
      'removeMember',
      await h.call('DELETE', `${members}/OWNER4%40example.com?user_id=${carol.user_id}`),
    );
    expect(removed).toEqual({ team_id: owner.team_id, email: 'owner4@example.com', removed: true });
    expectDetail(
      await h.call('DELETE', `${members}/carol%40example.com?user_id=${carol.user_id}`),
      409,
      'The last remaining member cannot be removed',
    );
    const left = (await h.call('GET', `${members}?user_id=${carol.user_id}`)).body;
    expect(left.map((m: { email: string }) => m.email)).toEqual(['carol@example.com']);
    // The removed owner lost access.
    expectDetail(await h.call('GET', `${members}?user_id=${owner.user_id}`), 403);
  });
});

describe('team invitations (extension)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ demo: false });
  });
  afterAll(() => h.close());

  it('activates an invitation when the invited user accepts with the emailed code', async () => {
    const owner = await createAccount(h, 'host@example.com');
    await h.call('POST', `/api/v2/teams/${owner.team_id}/members`, {
      user_id: owner.user_id,
      email: 'dana@example.com',
    });
    const accept = `/api/v2/teams/${owner.team_id}/invitations/accept`;
    const dana = await createAccount(h, 'dana@example.com');
    const code = h.services().membership.outbox.find((m) => m.email === 'dana@example.com')?.code ?? '';
    const wrong = code === '000000' ? '111111' : '000000';
    expectDetail(
      await h.call('POST', accept, { user_id: dana.user_id, code: wrong }),
      403,
      'Invalid verification code',
    );
    expectDetail(await h.call('POST', accept, { user_id: owner.user_id, code }), 404, 'Invitation not found');
    expectDetail(await h.call('POST', accept, { user_id: dana.user_id }), 400);
    const joined = await h.call('POST', accept, { user_id: dana.user_id, code });
    expect(joined.status).toBe(200);
    expect(joined.body).toMatchObject({ user_id: dana.user_id, email: 'dana@example.com', status: 'active' });
    expect(joined.body.joined_at).not.toBeNull();
    expect((await h.call('GET', `/api/v2/teams/me?user_id=${dana.user_id}`)).body.team_id).toBe(owner.team_id);
    const members = (await h.call('GET', `/api/v2/teams/${owner.team_id}/members?user_id=${dana.user_id}`)).body;
    expect(members.map((m: { status: string }) => m.status)).toEqual(['active', 'active']);
    expectDetail(await h.call('POST', accept, { user_id: dana.user_id, code }), 404, 'Invitation not found');
  });
});
