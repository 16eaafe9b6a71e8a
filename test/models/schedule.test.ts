import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { loadProject } from '../../src/models/project.js';
import type { NodeResult, NodeStatus } from '../../src/models/results.js';
import { schedule } from '../../src/models/schedule.js';
import type { Model } from '../../src/models/types.js';
import { Session } from '../../src/warehouse/session.js';
import { type Sandbox, sandbox, writeModels } from './support.js';

let s: Sandbox;
afterEach(() => s?.cleanup());

/** A runNode whose models finish only when the test says so, to observe what runs at the same time. */
function gate() {
  const started: string[] = [];
  const finish = new Map<string, (status: NodeStatus, message?: string) => void>();
  const runNode = (model: Model) =>
    new Promise<NodeResult>((resolve) => {
      started.push(model.id);
      finish.set(model.id, (status, message) =>
        resolve({
          ...(message ? { message } : {}),
          id: model.id,
          type: 'model',
          path: model.path,
          status,
          startedAt: '',
          durationMs: 0,
          rowsAffected: null,
          audits: [],
        }),
      );
    });
  return { started, finish, runNode };
}
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** The models written to a fresh sandbox, scheduled on `connections` connections with a gate() as their runNode. */
async function scheduled(models: Record<string, string>, connections: 1 | 2) {
  s = await sandbox();
  writeModels(s.modelsDir, models);
  const project = await loadProject(s.modelsDir);
  const executors = connections === 2 ? [s.db.session, Session.of(await s.db.connect())] : [s.db.session];
  const results = new Map<string, NodeResult>();
  const g = gate();
  const done = schedule(project.graph.order, project, executors, results, g.runNode, silentLogger);
  return { project, results, g, done };
}

describe('schedule', () => {
  it('runs independent models at the same time, and a child only after all its parents', async () => {
    const { results, g, done } = await scheduled(
      {
        'staging/a.sql': 'select 1 as x',
        'staging/b.sql': 'select 2 as x',
        'marts/c.sql': 'select * from staging.a union all select * from staging.b',
      },
      2,
    );
    await tick();
    expect(g.started.sort()).toEqual(['staging.a', 'staging.b']);
    g.finish.get('staging.a')?.('success');
    await tick();
    expect(g.started).not.toContain('marts.c');
    g.finish.get('staging.b')?.('success');
    await tick();
    expect(g.started).toContain('marts.c');
    g.finish.get('marts.c')?.('success');
    await done;
    expect(results.get('marts.c')?.status).toBe('success');
  });

  it('with one connection, one model at a time; a failed parent skips its descendants only', async () => {
    const { results, g, done } = await scheduled(
      {
        'staging/a.sql': 'select 1 as x',
        'staging/b.sql': 'select 2 as x',
        'marts/c.sql': 'select * from staging.a',
        'marts/d.sql': 'select * from marts.c',
      },
      1,
    );
    await tick();
    expect(g.started).toEqual(['staging.a']);
    g.finish.get('staging.a')?.('error');
    await tick();
    expect(g.started).toEqual(['staging.a', 'staging.b']);
    g.finish.get('staging.b')?.('success');
    await done;
    expect(g.started).toEqual(['staging.a', 'staging.b']);
    expect(results.get('marts.c')).toMatchObject({ status: 'skipped', message: 'skipped: upstream staging.a error' });
    expect(results.get('marts.d')).toMatchObject({ status: 'skipped', message: 'skipped: upstream marts.c skipped' });
  });

  it('runs a model that ran out of memory beside others again alone, before any other starts', async () => {
    const { results, g, done } = await scheduled(
      {
        'staging/a.sql': 'select 1 as x',
        'staging/b.sql': 'select 2 as x',
        'staging/e.sql': 'select 3 as x',
        'marts/c.sql': 'select * from staging.a',
      },
      2,
    );
    const oom = 'staging/a.sql: Out of Memory Error: failed to pin block of size 256.0 KiB';
    await tick();
    expect(g.started.sort()).toEqual(['staging.a', 'staging.b']);
    g.finish.get('staging.a')?.('error', oom);
    await tick();
    // b still runs: a waits for it, and nothing else starts meanwhile
    expect(g.started).toHaveLength(2);
    expect(results.has('staging.a')).toBe(false);
    g.finish.get('staging.b')?.('success');
    await tick();
    expect(g.started.slice(2)).toEqual(['staging.a']);
    g.finish.get('staging.a')?.('success', '12 day(s)');
    await tick();
    expect(results.get('staging.a')).toMatchObject({
      status: 'success',
      message: '12 day(s) (run alone after running out of memory beside other models)',
    });
    expect(g.started.slice(3).sort()).toEqual(['marts.c', 'staging.e']);
    g.finish.get('staging.e')?.('success');
    g.finish.get('marts.c')?.('success');
    await done;
  });

  it('a model out of memory alone, or with one connection, fails once; other errors are not run again', async () => {
    const { project, results, g, done } = await scheduled(
      { 'staging/a.sql': 'select 1 as x', 'staging/b.sql': 'select 2 as x' },
      2,
    );
    await tick();
    g.finish.get('staging.b')?.('error', 'staging/b.sql: Binder Error: column y not found');
    g.finish.get('staging.a')?.('error', 'staging/a.sql: Out of Memory Error: could not allocate');
    await tick();
    expect(g.started.slice(2)).toEqual(['staging.a']);
    g.finish.get('staging.a')?.('error', 'staging/a.sql: Out of Memory Error: could not allocate');
    await done;
    expect(g.started).toHaveLength(3);
    expect(results.get('staging.a')?.status).toBe('error');
    expect(results.get('staging.a')?.message).toContain('run alone after running out of memory');
    expect(results.get('staging.b')?.status).toBe('error');

    const single = new Map<string, NodeResult>();
    const h = gate();
    const alone = schedule(project.graph.order, project, [s.db.session], single, h.runNode, silentLogger);
    await tick();
    h.finish.get(h.started[0] as string)?.('error', 'Out of Memory Error: could not allocate');
    await tick();
    h.finish.get(h.started[1] as string)?.('success');
    await alone;
    expect(h.started).toHaveLength(2);
    expect(single.get(h.started[0] as string)?.status).toBe('error');
  });
});
