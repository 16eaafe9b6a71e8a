/**
 * vwh doctor reads the whole config as the commands that use it do: a cron expression `vwh schedule` would refuse
 * fails here too, a JSON syntax error names its line and column, an unknown field the nearest known one, and the
 * checks after a config error still run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { doctor } from '../../src/ops/doctor.js';
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
