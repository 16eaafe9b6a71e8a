/**
 * `vwh run` checks the whole config and reaches every key before it writes anything: a team whose key is nowhere, or
 * a config missing a field, ends the run with what to fix and no warehouse file. `vwh doctor` says whether the config
 * file exists.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { vwh } from '../cli/support.js';
import { tempDir } from './support.js';

const t = tempDir('vwh-config-first-');
const config = join(t.dir, 'vwh.config.json');
afterAll(() => t.cleanup());

describe('vwh run with a config it cannot use', () => {
  it('a team without a key: exit 3 naming the team, no warehouse written, no queries suggested', async () => {
    writeFileSync(config, JSON.stringify({ teams: [{ team: 'north' }] }));
    const ran = await vwh(['run', '--db', t.db, '--config', config], { cwd: t.dir });
    expect(ran.code, ran.stdout + ran.stderr).toBe(3);
    expect(ran.stderr).toMatch(/No API key for team north: set VWH_API_KEY .*\[AUTH_MISSING_KEY\]/);
    expect(existsSync(t.db)).toBe(false);
    expect(ran.stdout + ran.stderr).not.toContain('Query it next');
  });

  it('a team whose key file is missing: exit 3, nothing written', async () => {
    writeFileSync(config, JSON.stringify({ teams: [{ team: 'south', apiKeyFile: join(t.dir, 'none.key') }] }));
    const ran = await vwh(['run', '--db', t.db, '--config', config], { cwd: t.dir });
    expect(ran.code).toBe(3);
    expect(ran.stderr).toContain(`Key file ${join(t.dir, 'none.key')} for team south does not exist`);
    expect(existsSync(t.db)).toBe(false);
  });

  it('a team without its name: exit 64 naming the field, what it is and the reference page', async () => {
    writeFileSync(config, JSON.stringify({ teams: [{ apiKeyEnv: 'NORTH_KEY' }] }));
    const ran = await vwh(['run', '--db', t.db, '--config', config], { cwd: t.dir });
    expect(ran.code).toBe(64);
    expect(ran.stderr).toContain('teams.0.team is missing: a string is required here (team name stored in every row');
    expect(ran.stderr).toContain('docs/config.md');
    expect(existsSync(t.db)).toBe(false);
  });
});

describe('vwh doctor on the config file', () => {
  it('names the file when there is one, and says the defaults apply when there is none', async () => {
    const bare = tempDir('vwh-config-none-');
    try {
      const none = await vwh(['doctor', '--db', bare.db], { cwd: bare.dir });
      expect(none.stdout).toMatch(/^OK +config +none \(no vwh\.config\.json\): the defaults$/m);
      writeFileSync(join(bare.dir, 'vwh.config.json'), '{}');
      const some = await vwh(['doctor', '--db', bare.db], { cwd: bare.dir });
      expect(some.stdout).toMatch(/^OK +config +vwh\.config\.json$/m);
    } finally {
      bare.cleanup();
    }
  });
});
