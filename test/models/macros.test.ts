import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadMacros } from '../../src/models/macros.js';
import { loadProject, shippedModelsDir } from '../../src/models/project.js';
import { runUnitTests } from '../../src/models/unit-tests.js';
import { build, type Sandbox, sandbox, writeModels } from './support.js';

let s: Sandbox;
afterEach(() => s?.cleanup());

const WILSON = `-- the Wilson 95% lower bound of x successes in n trials, as a proportion
create macro wilson_low(x, n) as
  case when n > 0 then (x / n + 1.96 ^ 2 / (2 * n) - 1.96 * sqrt(x / n * (1 - x / n) / n + 1.96 ^ 2 / (4 * n ^ 2)))
    / (1 + 1.96 ^ 2 / n) end;
create or replace macro share(x, n) as case when n > 0 then x / n end;`;

describe('macros/', () => {
  it('creates the macros before the build and in unit tests; models call them like functions', async () => {
    s = await sandbox();
    await s.db.session.run('create schema if not exists raw');
    await s.db.session.run('create table raw.counts as select * from (values (4, 10), (0, 0)) t(x, n)');
    writeModels(s.modelsDir, {
      'macros/stats.sql': WILSON,
      'marts/rates.sql':
        '/* @model\nkind: table\n*/\nselect x, n, share(x, n) as p, wilson_low(x, n) as lo from raw.counts',
      // hand-computed: p = 0.4, z² = 3.8416; (0.4 + 0.19208 - 1.96 sqrt(0.024 + 0.009604)) / 1.38416
      // = (0.59208 - 1.96 × 0.183314) / 1.38416 = 0.232784 / 1.38416 = 0.168178
      'tests/unit/rates.yaml': `model: marts.rates
inputs:
  raw.counts: [{x: 4, n: 10}]
expected: [{x: 4, n: 10, p: 0.4, lo: 0.168177581}]`,
    });
    const r = await build(s);
    expect(r.byId('marts.rates').status).toBe('success');
    const rows = await s.db.session.all<{ n: number; p: number | null; lo: number | null }>(
      'select n, p, lo from marts.rates order by n',
    );
    expect(rows[0]).toEqual({ n: 0, p: null, lo: null });
    expect(rows[1]?.p).toBe(0.4);
    expect(rows[1]?.lo).toBeCloseTo(0.168178, 5);
    // persisted in the warehouse, so a BI tool can call them too
    expect(Number(await s.db.session.scalar('select wilson_low(4, 10) > 0.16'))).toBe(1);
    const unit = await runUnitTests(await loadProject(s.modelsDir));
    expect(unit).toMatchObject([{ name: 'rates', status: 'pass' }]);
  });

  it('editing a macro changes the fingerprint of the models that call it, and only theirs', async () => {
    s = await sandbox();
    writeModels(s.modelsDir, {
      'macros/stats.sql': WILSON,
      'marts/calls.sql': 'select share(1, 2) as p',
      'marts/plain.sql': 'select 1 as one',
    });
    const before = await loadProject(s.modelsDir);
    writeModels(s.modelsDir, { 'macros/stats.sql': WILSON.replace('x / n end;', 'round(x / n, 4) end;') });
    const after = await loadProject(s.modelsDir);
    expect(after.models.get('marts.calls')?.fingerprint).not.toBe(before.models.get('marts.calls')?.fingerprint);
    expect(after.models.get('marts.plain')?.fingerprint).toBe(before.models.get('marts.plain')?.fingerprint);
    expect(after.warnings).toEqual([]);
  });

  it('refuses anything but CREATE MACRO in macros/, and a macro defined twice, naming the file', async () => {
    s = await sandbox();
    writeModels(s.modelsDir, { 'macros/bad.sql': 'create table t as select 1', 'marts/a.sql': 'select 1 as x' });
    await expect(loadProject(s.modelsDir)).rejects.toThrow(/macros\/bad\.sql: only CREATE MACRO statements/);
    writeModels(s.modelsDir, { 'macros/bad.sql': WILSON, 'macros/more.sql': 'create macro share(a, b) as a / b;' });
    await expect(loadProject(s.modelsDir)).rejects.toThrow(/macros\/more\.sql: a second macro named share/);
  });
});

describe('the shipped share-of-voice interval (dbt-like-models/macros/stats.sql)', () => {
  it('treats the answer as the unit: wider than Wilson over the mentions when the brand sits in small answers', async () => {
    s = await sandbox();
    writeModels(s.modelsDir, {
      'macros/stats.sql': readFileSync(join(shippedModelsDir(), 'macros', 'stats.sql'), 'utf8'),
    });
    await build(s);
    // Four answers: a1 and a2 name only B; a3 and a4 name four other brands each. B: x = 2 of m = 10 mentions,
    // c = 1 + 1 = 2, s = 1 + 1 + 16 + 16 = 34, n = 4. R = 0.2; x − 2Rc + R²s = 2 − 0.8 + 1.36 = 2.56;
    // V = 4/3 · 2.56 / 100 = 0.034133; effective mentions R(1−R)/V = 0.16 / 0.034133 = 4.6875 (< 10, not capped);
    // Wilson at p = 0.2, n = 4.6875: (0.2 + 0.409771 ∓ 1.96 · sqrt(0.034133 + 0.043709)) / 1.819541 = 0.034584, 0.635663
    // (Wilson over the 10 mentions would say 0.056681 .. 0.509843).
    const [row] = await s.db.session.all<{
      n: number;
      lo: number;
      hi: number;
      capped: number;
      none: number | null;
      unknown: number | null;
    }>(
      `select share_effective_n(2, 10, 2, 34, 4) as n, share_low(2, 10, 2, 34, 4) as lo, share_high(2, 10, 2, 34, 4) as hi,
              share_effective_n(2, 7, 5, 17, 3) as capped, share_low(2, 10, 2, 34, 1) as none,
              share_high(2, 10, 2, null, 4) as unknown`,
    );
    expect(row?.n).toBeCloseTo(4.6875, 9);
    expect(row?.lo).toBeCloseTo(0.034584, 5);
    expect(row?.hi).toBeCloseTo(0.635663, 5);
    // the fixture's O (tracked_mentions_total 7): 12.56 effective mentions, capped at the 7 there are
    expect(row?.capped).toBe(7);
    expect(row?.none).toBeNull();
    // a sum a warehouse built before the intervals does not hold: no interval, not Wilson's over the mentions
    expect(row?.unknown).toBeNull();
  });

  it('share_low and share_high paste share_effective_n once (a macro is text: each repeat is planned again)', () => {
    // wilson_low(x / m * share_effective_n(…), share_effective_n(…)) repeated it twenty times after expansion, which
    // made the share_of_voice report's planning about 0.1 s per call site (docs/lake.md, "Reading the warehouse")
    const macros = loadMacros(shippedModelsDir());
    for (const name of ['share_low', 'share_high']) {
      const sql = macros.find((m) => m.name === name)?.sql ?? '';
      expect(sql.match(/share_effective_n\s*\(/g), name).toHaveLength(1);
    }
  });
});
