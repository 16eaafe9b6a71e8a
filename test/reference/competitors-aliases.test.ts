/** Competitors (active with the own brand, pending, review, create, update, delete) and brand aliases. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NIL_UUID } from '../../src/api/index.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { TODAY } from '../fixtures.js';
import { call, del, expectError, expectServed, firstProject, get, patch, post, start } from './support.js';

describe('competitors', () => {
  let server: ReferenceServer;
  let projectId: string;
  let base: string;
  beforeAll(async () => {
    server = await start();
    ({ projectId } = await firstProject(server));
    base = `/projects/${projectId}/competitors`;
  });
  afterAll(() => server.close());

  it('lists active competitors with the own brand present', async () => {
    const data = expectServed('listCompetitors', await get(server, base));
    expect(data.total_active).toBe(data.active_competitors.length);
    const own = data.active_competitors.filter((c: { is_own_brand: boolean }) => c.is_own_brand);
    expect(own).toHaveLength(1);
    expect(data.active_competitors.every((c: { state: string }) => c.state === 'active')).toBe(true);
  });

  it('creates competitors with the website normalized, then rejects duplicates and the 11th active', async () => {
    const res = await post(server, base, { competitors: [{ name: 'Spoke Co', website: 'WWW.Spoke-Co.example/path' }] });
    const data = expectServed('createCompetitors', res);
    expect(data.competitors[0]).toMatchObject({
      name: 'Spoke Co',
      website: 'https://www.spoke-co.example',
      state: 'active',
      isOwnBrand: false,
    });
    const listed = (await get(server, base)).body.data.active_competitors;
    expect(listed.some((c: { competitor_id: string }) => c.competitor_id === data.competitors[0].competitorId)).toBe(
      true,
    );

    expectError(
      await post(server, base, { competitors: [{ name: 'Again', website: 'https://spoke-co.example' }] }),
      409,
      'A competitor with this domain already exists',
    );
    expectError(await post(server, base, { competitors: [] }), 400, 'Invalid competitors');
    expectError(
      await post(server, base, { competitors: [{ name: ' ', website: 'x.example' }] }),
      400,
      'Invalid competitors',
    );
    expectError(
      await post(server, base, { competitors: [{ name: 'Bad', website: 'not a site' }] }),
      400,
      'Invalid competitors',
    );
    expectError(
      await post(server, base, {
        competitors: [
          { name: 'A', website: 'dup.example' },
          { name: 'B', website: 'https://www.dup.example' },
        ],
      }),
      400,
      'Invalid competitors',
    );

    const active = (await get(server, base)).body.data.active_competitors.filter(
      (c: { is_own_brand: boolean }) => !c.is_own_brand,
    ).length;
    const room = 10 - active;
    const fill = Array.from({ length: room }, (_, i) => ({ name: `Filler ${i}`, website: `filler-${i}.example` }));
    if (room > 0) expect((await post(server, base, { competitors: fill })).status).toBe(200);
    expectError(
      await post(server, base, { competitors: [{ name: 'Eleventh', website: 'eleventh.example' }] }),
      429,
      'Active competitor limit (10) reached',
    );
  });

  it('updates and deletes a competitor, with the update and delete error rows', async () => {
    const created = (
      await post(server, `/projects/${(await get(server, '/projects')).body.data[1].id}/competitors`, {
        competitors: [{ name: 'Rename Me', website: 'rename.example' }],
      })
    ).body.data.competitors[0];
    const url = `/projects/${created.projectId}/competitors/${created.competitorId}`;
    const updated = expectServed(
      'updateCompetitor',
      await patch(server, url, { name: 'Renamed', website: 'https://renamed.example/' }),
    );
    expect(updated).toMatchObject({ name: 'Renamed', website: 'https://renamed.example', state: 'active' });
    expectError(await patch(server, url, {}), 400, 'Nothing to update');
    expectError(await patch(server, url, { name: '  ' }), 400, 'Nothing to update');
    expectError(await patch(server, url, { website: 'not a site' }), 400, 'Nothing to update');
    expectError(await patch(server, url, { name: 'Renamed' }), 400, 'Nothing to update');
    expectServed('deleteCompetitor', await call(server, 'DELETE', url));
    expectError(await patch(server, url, { name: 'Gone' }), 404, 'Competitor not found');
    expectError(await call(server, 'DELETE', url), 404, 'Competitor not found');
    const listed = (await get(server, `/projects/${created.projectId}/competitors`)).body.data.active_competitors;
    expect(listed.some((c: { competitor_id: string }) => c.competitor_id === created.competitorId)).toBe(false);
  });

  it('lists AI-discovered pending competitors without metrics, and reviews them', async () => {
    const second = (await get(server, '/projects')).body.data[1].id;
    const pending = expectServed(
      'listPendingCompetitors',
      await get(server, `/projects/${second}/competitors/pending`),
    );
    expect(pending.total_pending).toBe(pending.pending_competitors.length);
    expect(pending.total_pending).toBeGreaterThan(1);
    expect(
      pending.pending_competitors.every(
        (c: { metrics: unknown; state: string }) => c.metrics === null && c.state === 'pending',
      ),
    ).toBe(true);
    const [first, other] = pending.pending_competitors;
    const url = (id: string) => `/projects/${second}/competitors/${id}/state`;
    const accepted = expectServed(
      'reviewCompetitor',
      await patch(server, url(first.competitor_id), { state: 'active' }),
    );
    expect(accepted).toMatchObject({ competitor_id: first.competitor_id, state: 'active' });
    expectError(await patch(server, url(first.competitor_id), { state: 'inactive' }), 409, 'Competitor is not pending');
    expectError(
      await patch(server, url(other.competitor_id), { state: 'bogus' }),
      400,
      "state must be 'active' or 'inactive'",
    );
    expectError(
      await patch(server, url(NIL_UUID.replace(/0$/, '9')), { state: 'active' }),
      404,
      'Competitor not found',
    );
    expect(
      expectServed('reviewCompetitor', await patch(server, url(other.competitor_id), { state: 'inactive' })).state,
    ).toBe('inactive');
    const after = (await get(server, `/projects/${second}/competitors/pending`)).body.data;
    expect(
      after.pending_competitors.some((c: { competitor_id: string }) => c.competitor_id === other.competitor_id),
    ).toBe(false);
    const active = (await get(server, `/projects/${second}/competitors`)).body.data.active_competitors;
    expect(active.some((c: { competitor_id: string }) => c.competitor_id === first.competitor_id)).toBe(true);
  });
});

describe('brand aliases', () => {
  let server: ReferenceServer;
  let url: string;
  beforeAll(async () => {
    server = await start();
    url = `/projects/${(await firstProject(server)).projectId}/aliases`;
  });
  afterAll(() => server.close());

  it('adds, renames, lists and deletes aliases, the project view showing them', async () => {
    const before = expectServed('listAliases', await get(server, url));
    const added = expectServed('addAlias', await post(server, url, { alias: 'Northwind Test Bikes' }));
    expect(added.aliases.at(-1)).toEqual({ name: 'Northwind Test Bikes', match_type: 'fuzzy' });
    expect(added.remaining).toBe(20 - before.aliases.length - 1);
    expect(added.next_actions[0]).toMatchObject({ endpoint_id: 'listAliases', method: 'GET' });
    const renamed = expectServed(
      'updateAlias',
      await patch(server, url, { original_alias: 'NORTHWIND test bikes', new_alias: 'NW Cycles', match_type: 'exact' }),
    );
    expect(renamed.aliases.at(-1)).toEqual({ name: 'NW Cycles', match_type: 'exact' });
    const project = (await get(server, url.replace('/aliases', ''))).body.data;
    expect(project.brand_aliases).toContain('NW Cycles');
    const removed = expectServed('deleteAlias', await del(server, `${url}?alias=nw%20cycles`));
    expect(removed.aliases.map((a: { name: string }) => a.name)).not.toContain('NW Cycles');
  });

  it('answers every ALIAS_* code', async () => {
    expectError(await post(server, url, { alias: '   ' }), 400, 'Alias must not be empty', 'ALIAS_EMPTY');
    expectError(await post(server, url, {}), 400, 'Alias must not be empty', 'ALIAS_EMPTY');
    expectError(
      await post(server, url, { alias: 'x'.repeat(101) }),
      400,
      'Alias must be at most 100 characters',
      'ALIAS_TOO_LONG',
    );
    expect((await post(server, url, { alias: 'x'.repeat(100) })).status).toBe(200);
    expectError(await post(server, url, { alias: 'X'.repeat(100) }), 409, 'Alias already exists', 'ALIAS_DUPLICATE');
    expectError(
      await patch(server, url, { original_alias: 'absent', new_alias: 'y' }),
      404,
      'Alias not found',
      'ALIAS_NOT_FOUND',
    );
    expectError(await del(server, `${url}?alias=absent`), 404, 'Alias not found', 'ALIAS_NOT_FOUND');
    const count = (await get(server, url)).body.data.aliases.length;
    for (let i = count; i < 20; i++) expect((await post(server, url, { alias: `alias ${i}` })).status).toBe(200);
    expectError(
      await post(server, url, { alias: 'one too many' }),
      429,
      'Alias limit (20) reached',
      'ALIAS_LIMIT_REACHED',
    );
    expect((await get(server, url)).body.data.remaining).toBe(0);
  });
});

describe('answers already served do not change', () => {
  let server: ReferenceServer;
  afterAll(() => server.close());

  it("detecting pending competitors or adding one during the day leaves that day's answers as served", async () => {
    server = await start();
    const { projectId } = await firstProject(server);
    const prompts = (await get(server, `/projects/${projectId}/prompts`)).body.data.prompts as Array<{ id: string }>;
    const todays = async () => {
      const pages: unknown[] = [];
      for (const p of prompts) {
        pages.push(
          (await get(server, `/projects/${projectId}/prompts/${p.id}/chats?date_from=${TODAY}&date_to=${TODAY}`)).body,
        );
      }
      return JSON.stringify(pages);
    };
    const before = await todays();
    expect(before).toContain('full_content');
    const pending = expectServed(
      'listPendingCompetitors',
      await get(server, `/projects/${projectId}/competitors/pending`),
    );
    expect(pending.total_pending).toBeGreaterThan(0);
    expectServed(
      'createCompetitors',
      await post(server, `/projects/${projectId}/competitors`, {
        competitors: [{ name: 'Latecomer', website: 'latecomer.example' }],
      }),
    );
    expect(await todays()).toBe(before);
  });
});
