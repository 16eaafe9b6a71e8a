/** `vwh doctor` against the reference server: key validity and tier, the API's day, the lock holder, the published copy. */
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayToMs } from '../../src/core/days.js';
import { doctor } from '../../src/ops/doctor.js';
import { lockPathFor } from '../../src/ops/lock.js';
import type { ReferenceServer } from '../../src/reference/index.js';
import { TODAY } from '../fixtures.js';
import { startWorld } from '../sync/support.js';
import { tempDir, writeConfig } from './support.js';

describe('vwh doctor', () => {
  const t = tempDir('vwh-doctor-');
  let server: ReferenceServer;
  const previous = process.env.VWH_API_KEY;
  beforeAll(async () => {
    server = await startWorld();
  });
  afterAll(async () => {
    if (previous === undefined) delete process.env.VWH_API_KEY;
    else process.env.VWH_API_KEY = previous;
    await server.close();
    t.cleanup();
  });

  it('checks the key with one request (tier from the rate headers), compares the API day with the clock, names the lock holder', async () => {
    process.env.VWH_API_KEY = server.demoApiKey;
    const config = writeConfig(t.db, {});
    writeFileSync(
      lockPathFor(t.db),
      JSON.stringify({
        pid: 424242,
        host: 'elsewhere',
        startedAt: '2026-03-15T02:30:00Z',
        command: 'vwh run (schedule)',
      }),
    );
    const noon = dayToMs(TODAY) + 12 * 3_600_000;
    const checks = await doctor({ config, db: t.db, baseUrl: server.url }, noon);
    const byName = Object.fromEntries(checks.map((c) => [c.name, c]));
    expect(byName['key default']).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/tier standard \(70 requests/),
    });
    expect(byName['key default']?.detail).not.toContain(server.demoApiKey);
    expect(byName['clock default']).toMatchObject({ status: 'ok' });
    expect(byName.warehouse?.detail).toMatch(/PID 424242 on elsewhere/);
    // taken 9.5 h before: within the default limit (12 h) the lock is live; past the config's own limit it is stale,
    // as the next run judges it
    expect(byName.warehouse?.detail).not.toMatch(/stale/);
    const strict = writeConfig(t.db, { schedule: { staleLockMinutes: 60 } });
    const judged = await doctor({ config: strict, db: t.db, baseUrl: server.url }, noon);
    expect(judged.find((c) => c.name === 'warehouse')?.detail).toMatch(/\(stale: the next run takes it over\)/);
    expect(byName.published?.status).toBe('warn');
    expect(hostname()).not.toBe('elsewhere');

    const nextWeek = await doctor({ config, db: t.db, baseUrl: server.url }, noon + 7 * 86_400_000);
    expect(nextWeek.find((c) => c.name === 'clock default')).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/API's day is 2026-03-15/),
    });
  });

  it('fails a refused key with what to do, and a broken config', async () => {
    process.env.VWH_API_KEY = 'vwh_live_not_a_real_key_000000';
    const refused = await doctor({ config: writeConfig(t.db, {}), db: t.db, baseUrl: server.url });
    expect(refused.find((c) => c.name === 'key default')).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/refused key .*401/),
    });
    const broken = await doctor({ config: writeConfig(t.db, { schedule: { catchUp: 'sometimes' } }), db: t.db });
    expect(broken[0]).toEqual({ name: 'config', status: 'fail', detail: expect.stringMatching(/schedule\.catchUp/) });
    // and the other checks still ran
    expect(broken.map((c) => c.name)).toContain('warehouse');
  });
});
