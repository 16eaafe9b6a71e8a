/**
 * vwh doctor reads the whole config as the commands that use it do: a cron expression `vwh schedule` would refuse
 * fails here too, a JSON syntax error names its line and column, an unknown field the nearest known one, and the
 * checks after a config error still run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { doctor } from '../../src/ops/doctor.js';
import { vwh } from '../cli/support.js';
import { tempDir } from './support.js';

describe('vwh doctor on the config', () => {
  const t = tempDir('vwh-doctor-config-');
  afterAll(() => t.cleanup());
  const write = (name: string, text: string) => {
    const path = join(t.dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('fails a cron expression vwh schedule would refuse, naming the field', async () => {
    const config = write('cron.json', JSON.stringify({ db: t.db, schedule: { cron: 'every night' } }));
    const checks = await doctor({ config });
    expect(checks.find((c) => c.name === 'config')?.status).toBe('ok');
    const schedule = checks.find((c) => c.name === 'schedule');
    expect(schedule?.status).toBe('fail');
    expect(schedule?.detail).toMatch(/schedule\.cron in .*cron\.json "every night" is not a cron expression/);
    const good = await doctor({
      config: write('good.json', JSON.stringify({ db: t.db, schedule: { timezone: 'Europe/Berlin' } })),
    });
    expect(good.find((c) => c.name === 'schedule')?.detail).toMatch(
      /"30 2 \* \* \*" in Europe\/Berlin: next run .* Europe\/Berlin \(.* UTC\)/,
    );
  });

  it('fails a time zone vwh schedule would refuse, naming the field, and the CLI exits non-zero', async () => {
    const config = write('zone.json', JSON.stringify({ db: t.db, schedule: { timezone: 'Mars/Olympus' } }));
    const schedule = (await doctor({ config })).find((c) => c.name === 'schedule');
    expect(schedule?.status).toBe('fail');
    expect(schedule?.detail).toMatch(/schedule\.timezone in .*zone\.json "Mars\/Olympus" is not an IANA time zone/);
    const cli = await vwh(['doctor', '--config', config], { cwd: t.dir });
    expect(cli.code, cli.stdout).toBe(1);
    expect(cli.stdout).toMatch(/^FAIL +schedule +schedule\.timezone in /m);
  });

  it('fails a models.dir that does not exist or holds a model that does not parse, naming the field', async () => {
    const missing = write('missing.json', JSON.stringify({ db: t.db, models: { dir: join(t.dir, 'nomodels') } }));
    const gone = (await doctor({ config: missing })).find((c) => c.name === 'models');
    expect(gone?.status).toBe('fail');
    expect(gone?.detail).toMatch(/models\.dir in .*missing\.json: The models directory .*nomodels does not exist/);
    const dir = join(t.dir, 'models');
    mkdirSync(join(dir, 'marts'), { recursive: true });
    writeFileSync(join(dir, 'marts', 'bad.sql'), 'select from where');
    const broken = write('broken.json', JSON.stringify({ db: t.db, models: { dir } }));
    const bad = (await doctor({ config: broken })).find((c) => c.name === 'models');
    expect(bad?.status).toBe('fail');
    expect(bad?.detail).toMatch(/models\.dir in .*broken\.json: .*bad\.sql/);
    writeFileSync(join(dir, 'marts', 'bad.sql'), 'select 1 as n');
    const good = (await doctor({ config: broken })).find((c) => c.name === 'models');
    expect(good).toMatchObject({ status: 'ok', detail: `${dir}: 1 models` });
  });

  it('names the line and column of a JSON error and the nearest field of an unknown one, and goes on checking', async () => {
    const syntax = await doctor({ config: write('comma.json', '{\n  "db": "x.duckdb",\n  "lookbackDays": 3,\n}\n') });
    expect(syntax.find((c) => c.name === 'config')?.detail).toMatch(/not valid JSON: .* at line 4, column 1/);
    // the warehouse, disk and published checks still ran (on the defaults)
    expect(syntax.map((c) => c.name)).toEqual(expect.arrayContaining(['config', 'key', 'warehouse', 'published']));

    const unknown = await doctor({
      config: write('keys.json', JSON.stringify({ dbPath: t.db, schedule: { timezon: 'UTC' } })),
    });
    const detail = unknown.find((c) => c.name === 'config')?.detail ?? '';
    expect(detail).toContain('unknown field "dbPath" (did you mean "db"?)');
    expect(detail).toContain('schedule: unknown field "timezon" (did you mean "timezone"?)');
  });
});
