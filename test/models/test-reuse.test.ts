/**
 * A build with nothing new does not re-run the singular tests: a test whose inputs (its SQL, the sources it reads,
 * the last build of every model above it) are those it last passed on is reported as passed and not queried.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { addDay, build, type Sandbox, sandbox, seedRaw, writeModels } from './support.js';

let s: Sandbox;
afterEach(() => s?.cleanup());

const table = (sql: string) => `/* @model\nkind: table\n*/\n${sql}`;
const REUSED = /^up to date: no input changed since it last passed, at 2026-01-06T03:00:00Z \(run [\w-]+\)$/;

/** Two tables from two raw tables, a test on each, one on raw.chats itself, one on both tables. */
async function project(): Promise<void> {
  s = await sandbox();
  await seedRaw(s.db);
  writeModels(s.modelsDir, {
    'staging/chats.sql': table('select * from raw.chats'),
    'staging/projects.sql': table('select * from raw.projects'),
    'tests/known_brands.sql': "select * from staging.chats where brand not in ('acme', 'globex')",
    'tests/active_projects.sql': "select * from staging.projects where status <> 'active'",
    'tests/raw_positions.sql': 'select * from raw.chats where position > 3',
    'tests/both.sql':
      'select * from staging.chats where project_id is null and exists (select 1 from staging.projects)',
  });
}

const TESTS = ['test.known_brands', 'test.active_projects', 'test.raw_positions', 'test.both'];

/** The tests that ran (were queried) in a build, by id. */
function ran(r: Awaited<ReturnType<typeof build>>): string[] {
  return r.results
    .filter((x) => x.type === 'test' && !x.reused)
    .map((x) => x.id)
    .sort();
}

describe('singular tests in a build with nothing new', () => {
  it('are reported as passed, with when they last ran, and not queried', async () => {
    await project();
    const first = await build(s);
    for (const id of TESTS) expect(first.byId(id)).toMatchObject({ status: 'success', message: '0 failing row(s)' });
    await s.clock.advance(3_600_000);
    const noop = await build(s);
    expect(noop.results.filter((r) => r.type === 'model').every((r) => r.reused)).toBe(true);
    for (const id of TESTS) {
      expect(noop.byId(id)).toMatchObject({ status: 'success', reused: true, message: expect.stringMatching(REUSED) });
      expect(noop.byId(id).message).toContain(`(run ${first.runId})`);
    }
    // A row that fails known_brands, written into the model's table by hand: no input the runner hashes moved, so
    // the build keeps the test's last result. Had it queried the table, the test would fail.
    await s.db.session.run(
      "insert into staging.chats (id, day, project_id, brand) values (999, date '2026-01-02', 'p1', 'initech')",
    );
    expect((await build(s)).byId('test.known_brands')).toMatchObject({ status: 'success', reused: true });
    // `vwh models test` always queries; its failure makes the next build query the test again.
    expect((await build(s, { command: 'test' })).byId('test.known_brands')).toMatchObject({
      status: 'fail',
      message: '1 failing row(s)',
    });
    const after = await build(s);
    expect(after.byId('test.known_brands')).toMatchObject({ status: 'fail', message: '1 failing row(s)' });
    expect(ran(after)).toEqual(['test.known_brands']);
    // The run's record says so too.
    const recorded = await s.db.session.all<{ node: string; status: string; message: string }>(
      `select node, status, message from ops.model_runs where run_id = '${noop.runId}' and node_type = 'test' order by node`,
    );
    expect(recorded).toHaveLength(4);
    for (const row of recorded)
      expect(row).toMatchObject({ status: 'success', message: expect.stringMatching(REUSED) });
  });

  it('a changed input re-runs exactly the tests that read it, through the models above them', async () => {
    await project();
    await build(s);
    // raw.projects gains a paused project: staging.projects is rebuilt, and the tests reading it run.
    await s.db.session.run("insert into raw.projects values (3, 'Gamma', 'paused', timestamp '2026-01-05 00:00:00')");
    const projects = await build(s);
    expect(ran(projects)).toEqual(['test.active_projects', 'test.both']);
    expect(projects.byId('test.active_projects')).toMatchObject({ status: 'fail', message: '1 failing row(s)' });
    // raw.chats gains a day: staging.chats is rebuilt; raw_positions reads raw.chats itself.
    await addDay(s.db, '2026-01-06');
    expect(ran(await build(s))).toEqual([
      'test.active_projects', // failed last time: runs again
      'test.both',
      'test.known_brands',
      'test.raw_positions',
    ]);
    // A test's own SQL changed: that test runs, and only it (with the one that failed).
    writeModels(s.modelsDir, { 'tests/raw_positions.sql': 'select * from raw.chats where position > 2' });
    const edited = await build(s);
    expect(ran(edited)).toEqual(['test.active_projects', 'test.raw_positions']);
    expect(edited.byId('test.raw_positions').status).toBe('fail');
  });

  it('a failing or warning test runs every time', async () => {
    await project();
    writeModels(s.modelsDir, {
      'tests/known_brands.sql': "select * from staging.chats where brand <> 'acme'",
      'tests/raw_positions.sql': '/* @test\nseverity: warn\n*/\nselect * from raw.chats where position > 2',
    });
    for (let i = 0; i < 3; i++) {
      const r = await build(s);
      expect(r.byId('test.known_brands')).toMatchObject({ status: 'fail', message: '10 failing row(s)' });
      expect(r.byId('test.raw_positions')).toMatchObject({ status: 'warn', message: '5 failing row(s)' });
      expect(ran(r)).toEqual(i === 0 ? [...TESTS].sort() : ['test.known_brands', 'test.raw_positions']);
    }
  });

  it('--full-refresh and --start re-run every test; a selected test runs, alone or with its models', async () => {
    await project();
    await build(s);
    // A full refresh or a backfill rebuilds every model and records no input keys: the next build rebuilds them and
    // runs the tests above them once more (raw_positions reads no model: its inputs are those it last passed on).
    const aboveModels = ['test.active_projects', 'test.both', 'test.known_brands'];
    expect(ran(await build(s, { fullRefresh: true }))).toEqual([...TESTS].sort());
    expect(ran(await build(s))).toEqual(aboveModels);
    expect(ran(await build(s, { start: '2026-01-01' }))).toEqual([...TESTS].sort());
    expect(ran(await build(s))).toEqual(aboveModels);
    expect(ran(await build(s))).toEqual([]);
    const selected = await build(s, { select: ['test.both'] });
    expect(selected.results.map((r) => r.id)).toEqual(['test.both']);
    expect(selected.byId('test.both')).toMatchObject({ status: 'success', message: '0 failing row(s)' });
    const withModels = await build(s, { select: ['+active_projects'] });
    // The named test runs; the model above it is kept, and so is the other test reading that model.
    expect(withModels.results.map((r) => r.id).sort()).toEqual([
      'staging.projects',
      'test.active_projects',
      'test.both',
    ]);
    expect(ran(withModels)).toEqual(['test.active_projects']);
    expect(withModels.byId('staging.projects').reused).toBe(true);
    // Selecting a model does not force its tests: they run when something they read changed.
    expect(ran(await build(s, { select: ['staging.chats'] }))).toEqual([]);
    const excluded = await build(s, { exclude: ['test.both'] });
    expect(excluded.results.some((r) => r.id === 'test.both')).toBe(false);
  });
});
