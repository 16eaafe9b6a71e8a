/**
 * `vwh report` as a user runs it: to stdout when --out is absent or `-` (the summary on stderr), the format from
 * --out's extension, a project by name as well as by id (an unknown one lists names and ids), and the project's
 * name in every row of every report. One small embedded run fills the warehouse; the reports run as the built CLI.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadReports, writeReport } from '../../src/export/index.js';
import { runNightly } from '../../src/ops/nightly.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { capture, quiet, tempDir, tinyWorld, writeConfig } from '../ops/support.js';
import { vwh } from './support.js';

const t = tempDir('vwh-report-out-');
let projects: Array<{ id: string; name: string }> = [];

beforeAll(async () => {
  // the reports read the warehouse: the run's own exports and published copy would be work nothing reads
  const base = tinyWorld(t.db, '2026-04-10', {
    config: writeConfig(t.db, { exports: {}, publish: { enabled: false } }),
  });
  const result = await runNightly(
    { ...base, world: { seed: 11, projects: 2, prompts: 2, historyDays: 5 } },
    { out: capture().out, logger: quiet },
  );
  expect(result.exitCode).toBe(0);
  const db = await Database.open(t.db, { access_mode: 'READ_ONLY' });
  try {
    projects = await db.session.all('select id, any_value(name) as name from raw.projects group by id order by id');
  } finally {
    db.close();
  }
  expect(projects.length).toBe(2);
}, 120_000);
afterAll(() => t.cleanup());

const report = (args: string[]) => vwh(['report', ...args, '--db', t.db], { cwd: t.dir });

describe('vwh report output', () => {
  it('writes to stdout without --out or with --out -, the same bytes as the file, the summary on stderr', async () => {
    const file = join(t.dir, 'sov.csv');
    const written = await report(['share_of_voice', '--out', file]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toMatch(/^report: 1 file, \d+ rows/);
    const piped = await report(['share_of_voice']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toBe(readFileSync(file, 'utf8'));
    expect(piped.stderr).toMatch(/^vwh: reading .*\nreport: 1 file, \d+ rows/);
    const dash = await report(['share_of_voice', '--out', '-', '--format', 'json']);
    expect(dash.code).toBe(0);
    expect(JSON.parse(dash.stdout).length).toBe(readFileSync(file, 'utf8').trim().split('\r\n').length - 1);
  });

  it('takes the format from the extension, and refuses one it cannot tell or that contradicts --format', async () => {
    const md = join(t.dir, 'weekly.md');
    expect((await report(['weekly_visibility', '--out', md])).code).toBe(0);
    expect(readFileSync(md, 'utf8')).toMatch(/^# Weekly visibility/);
    const json = join(t.dir, 'weekly.json');
    expect((await report(['weekly_visibility', '--out', json])).code).toBe(0);
    expect(Array.isArray(JSON.parse(readFileSync(json, 'utf8')))).toBe(true);
    const unknown = await report(['weekly_visibility', '--out', join(t.dir, 'weekly.txt')]);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toMatch(/Cannot tell the format from --out .*weekly\.txt: name it \.csv, \.json or \.md/);
    const clash = await report(['weekly_visibility', '--format', 'json', '--out', join(t.dir, 'w.csv')]);
    expect(clash.code).toBe(64);
    expect(clash.stderr).toMatch(/--format json but --out .*w\.csv ends in \.csv/);
  });

  it('accepts a project by name (in any case) as by id, and an unknown one lists the names and ids', async () => {
    const [first] = projects;
    if (!first) throw new Error('no project');
    const byId = await report(['weekly_visibility', '--project', first.id]);
    const byName = await report(['weekly_visibility', '--project', first.name.toUpperCase()]);
    expect([byId.code, byName.code]).toEqual([0, 0]);
    expect(byName.stdout).toBe(byId.stdout);
    const rows = byId.stdout.trim().split('\r\n').slice(1);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.startsWith(`${first.name},${first.id},`)).toBe(true);
    const unknown = await report(['weekly_visibility', '--project', 'No Such Brand']);
    expect(unknown.code).toBe(64);
    for (const p of projects) expect(unknown.stderr).toContain(`${JSON.stringify(p.name)} (${p.id})`);
  });

  it('every report leads with the project name, then the project id, in every row (names before ids)', async () => {
    const names = new Map(projects.map((p) => [p.id, p.name]));
    for (const name of loadReports().keys()) {
      const out = join(t.dir, `${name}.json`);
      await writeReport({ db: t.db, name, format: 'json', out });
      const rows = JSON.parse(readFileSync(out, 'utf8')) as Array<Record<string, unknown>>;
      for (const row of rows) {
        expect(Object.keys(row).slice(0, 2), name).toEqual(['project_name', 'project_id']);
        expect(row.project_name, name).toBe(names.get(String(row.project_id)));
      }
    }
  });

  it('says the range of the data when --from or --to falls outside it, and did-you-mean for a mistyped name (issue 56)', async () => {
    // the world of 2026-04-10: answers up to 2026-04-09
    const after = await report(['weekly_visibility', '--from', '2027-01-01']);
    expect(after.code).toBe(0);
    expect(after.stderr).toMatch(
      /0 rows.*--from 2027-01-01 is after the data's last day: the data covers 2026-\d\d-\d\d\.\.2026-04-09/,
    );
    const before = await report(['weekly_visibility', '--to', '2020-01-01', '--out', join(t.dir, 'early.csv')]);
    expect(before.stdout).toMatch(/--to 2020-01-01 is before the data's first day: the data covers 2026-\d\d-\d\d\.\./);
    const inside = await report(['weekly_visibility', '--from', '2026-04-08', '--out', join(t.dir, 'in.csv')]);
    expect(inside.stdout).not.toContain('the data covers');
    const typo = await report(['weekly_visibilty']);
    expect(typo.code).toBe(64);
    expect(typo.stderr).toContain('Unknown report "weekly_visibilty". Did you mean weekly_visibility?');
  }, 60_000);
});
