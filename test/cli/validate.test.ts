/**
 * Every flag, environment variable and config value goes through one validation: exit 64 and a message naming the
 * input and what a valid value looks like, before anything is opened, created or fetched.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { tempDir } from '../fixtures.js';

const dir = tempDir('vwh-validate-').dir;
const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  vi.restoreAllMocks();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// a file where a folder should be: the warehouse cannot go below it
const inTheWay = join(dir, 'in-the-way');
writeFileSync(inTheWay, 'x');

async function vwh(...args: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
  const code = await main(['node', 'vwh', ...args]);
  vi.restoreAllMocks();
  return { code, err };
}

function env(extra: Record<string, string> = {}): void {
  // A port nothing listens on: a check that let a value through would fail later with another code than 64.
  Object.assign(process.env, { VWH_API_KEY: 'vwh_test_key_0123456789', VWH_BASE_URL: 'http://127.0.0.1:9' }, extra);
}

describe('one validation for every input', () => {
  it.each([
    [['sync', '--until', '2026-02-30', '--plan'], /--until must be a calendar day that exists, got "2026-02-30"/],
    [['sync', '--since', '2026-02-31', '--plan'], /--since must be a calendar day that exists, got "2026-02-31"/],
    [['sync', '--db', '', '--plan'], /--db is empty \(an unset variable\?\)/],
    [['sync', '--base-url', 'not a url', '--plan'], /--base-url must be an http:\/\/ or https:\/\/ URL/],
    [['sync', '--base-url', 'ftp://example.com', '--plan'], /--base-url must be an http:\/\/ or https:\/\/ URL/],
    [['sync', '--base-url', 'file:///etc/passwd', '--plan'], /--base-url must be an http:\/\/ or https:\/\/ URL/],
    [['sync', '--concurrency', 'many', '--plan'], /--concurrency must be a whole number from 1 to 32, got "many"/],
    [['sync', '--max-retry-after', '-1', '--plan'], /--max-retry-after must be a whole number from 0 to 86400, got -1/],
    [['serve', '--port', '99999'], /--port must be a whole number from 0 to 65535, got 99999/],
    [['serve', '--today', '2026-02-29'], /--today must be a calendar day that exists/],
    [['models', 'build', '--models-dir', '/etc/hostname'], /--models-dir must be an existing directory/],
    [['models', 'plan', '--end', '2026-13-01'], /--end must be a calendar day that exists/],
    [['models', 'build', '--db', ''], /--db is empty/],
    // One rule for a DuckDB size on both commands that take one.
    [['models', 'build', '--memory-limit', 'lots'], /--memory-limit must be a size such as 512MB or 2GB, got "lots"/],
    [
      ['sync', '--memory-limit', '2 gigs', '--plan'],
      /--memory-limit must be a size such as 512MB or 2GB, got "2 gigs"/,
    ],
    [['query', '--db', '', 'select 1'], /--db is empty/],
    // Node's timers hold at most 2^31 - 1 ms: a longer timeout fired at once and stopped the query
    [['query', '--timeout', '2200000', 'select 1'], /--timeout must be a whole number of seconds from 0 to 2147483/],
    [['schedule', '--stop-timeout', '9999999'], /--stop-timeout must be a whole number of seconds from 1 to 2147483/],
    [
      ['sync', '--rate-window-ms', '3000000000', '--plan'],
      /--rate-window-ms must be a whole number of milliseconds from 1 to 2147483647/,
    ],
    [['run', '--rate-window-ms', '3000000000'], /--rate-window-ms must be a whole number of milliseconds from 1/],
    [['serve', '--rate-window-ms', '3000000000'], /--rate-window-ms must be a whole number of milliseconds from 1/],
    // days that drive requests are bounded: year 0 planned 477,443 requests, or sent date_from=-000001-12
    [
      ['sync', '--since', '0000-01-01', '--plan'],
      /--since must be a day from 2000-01-01 to 2099-12-31, got "0000-01-01"/,
    ],
    [['sync', '--today', '0000-01-01', '--plan'], /--today must be a day from 2000-01-01 to 2099-12-31/],
    [['sync', '--until', '9999-12-31', '--plan'], /--until must be a day from 2000-01-01 to 2099-12-31/],
    [['run', '--today', '1999-12-31'], /--today must be a day from 2000-01-01 to 2099-12-31/],
    [['serve', '--today', '2100-01-01'], /--today must be a day from 2000-01-01 to 2099-12-31/],
    // a team names a folder of the lake: the export's rule, for the sync too
    [
      ['sync', '--team', '../../..', '--plan'],
      /--team must be letters, digits and _ \. : - only.*got "\.\.\/\.\.\/\.\."/,
    ],
    [['run', '--team', 'a/b'], /--team must be letters, digits and _ \. : - only/],

    [['query', '--max-rows', '0', 'select 1'], /--max-rows must be a whole number >= 1, got 0/],
    [
      ['models', 'docs', '--target-dir', inTheWay],
      /^vwh: --target-dir .*in-the-way is a file, not a folder: point --target-dir at a folder\./,
    ],
    [
      ['run', '--db', join(inTheWay, 'w.duckdb')],
      /^vwh: --db \(or "db" in the config\) .*in-the-way\/w\.duckdb: .*in-the-way is a file, not a folder\./,
    ],
    [['models', 'build', '--log-format', 'xml'], /--log-format must be human or json, got "xml"/],
    [['export', 'arrow', '--out', 'a', '--log-format', 'text'], /--log-format must be human or json, got "text"/],
    [['report', 'html', '--format', 'csv', '--out', 'r.csv'], /html report is one HTML file and takes no --format/],
    [['report', 'html', '--bom', '--out', 'r.html'], /html report is one HTML file and takes no --bom/],
    [
      ['report', 'share_of_voice', '--format', 'json', '--bom', '--out', 'r.json'],
      /--bom is for CSV: drop it with --format json/,
    ],
  ])('vwh %j exits 64 and says what to fix', async (args, message) => {
    env();
    const r = await vwh(...args);
    expect(r.err).toMatch(message);
    expect(r.code).toBe(64);
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it('environment variables are checked the same way and named in the message', async () => {
    env({ VWH_BASE_URL: 'ftp://example.com' });
    const r = await vwh('sync', '--plan', '--db', join(dir, 'env.duckdb'));
    expect(r.code).toBe(64);
    expect(r.err).toMatch(/VWH_BASE_URL must be an http:\/\/ or https:\/\/ URL.*"ftp:\/\/example.com"/);
    expect(existsSync(join(dir, 'env.duckdb'))).toBe(false);
  });

  it('a 10 kB argument is shown cut, with its length, not echoed whole', async () => {
    const r = await vwh('sync', '--since', 'x'.repeat(10_000), '--plan');
    expect(r.code).toBe(64);
    expect(r.err).toMatch(/^vwh: --since must be a day YYYY-MM-DD, got "x{80}"… \(10000 characters\)\. \[USAGE\]\n$/);
  });

  it("VWH_TEAM and the config's team names are held to the same rule: no team named ../../..", async () => {
    env({ VWH_TEAM: '../../..' });
    const fromEnv = await vwh('sync', '--plan', '--db', join(dir, 'team.duckdb'));
    expect(fromEnv.code).toBe(64);
    expect(fromEnv.err).toMatch(/VWH_TEAM must be letters, digits and _ \. : - only/);
    delete process.env.VWH_TEAM;
    const config = join(dir, 'team.config.json');
    writeFileSync(config, JSON.stringify({ teams: [{ team: '../../..', apiKeyEnv: 'VWH_API_KEY' }] }));
    const fromConfig = await vwh('sync', '--plan', '--config', config, '--db', join(dir, 'team.duckdb'));
    expect(fromConfig.code).toBe(64);
    expect(fromConfig.err).toMatch(/teams\.0\.team: must be letters, digits and _ \. : - only.*\[CONFIG_INVALID\]/);
    expect(existsSync(join(dir, 'team.duckdb'))).toBe(false);
  });

  it('an API key with a line break or a space is refused naming where it came from, never echoing it', async () => {
    const key = 'vwh_live_0123456789abcdef';
    env({ VWH_API_KEY: `${key}\n${key}` });
    const fromEnv = await vwh('sync', '--plan', '--db', join(dir, 'key.duckdb'));
    expect(fromEnv.code).toBe(64);
    expect(fromEnv.err).toMatch(/The API key in VWH_API_KEY holds a line break at character 26 of 51.*\[USAGE\]/);
    expect(fromEnv.err).not.toContain(key);
    const file = join(dir, 'key.txt');
    writeFileSync(file, `${key} ${key}\n`);
    const fromFile = await vwh('sync', '--plan', '--key-file', file, '--db', join(dir, 'key.duckdb'));
    expect(fromFile.code).toBe(64);
    expect(fromFile.err).toMatch(/The API key in Key file .*key\.txt holds a space or tab at character 26/);
    expect(fromFile.err).not.toContain(key);
    expect(existsSync(join(dir, 'key.duckdb'))).toBe(false);
  });

  it('the config file is checked with the same schemas: an impossible day or a bad URL exits 64 naming the field', async () => {
    env();
    const config = join(dir, 'bad.config.json');
    writeFileSync(config, JSON.stringify({ since: '2026-02-30', baseUrl: 'file:///etc' }));
    const r = await vwh('sync', '--plan', '--config', config);
    expect(r.code).toBe(64);
    expect(r.err).toMatch(/since: must be a calendar day that exists, got "2026-02-30"/);
    expect(r.err).toMatch(/baseUrl: must be an http:\/\/ or https:\/\/ URL/);
  });

  it('timers in the config are bounded by what Node keeps: a longer rate window or alert timeout exits 64', async () => {
    env();
    const config = join(dir, 'timers.config.json');
    writeFileSync(config, JSON.stringify({ rateWindowMs: 3_000_000_000, alerts: { timeoutMs: 2_147_483_648 } }));
    const r = await vwh('sync', '--plan', '--config', config);
    expect(r.code).toBe(64);
    expect(r.err).toMatch(/rateWindowMs: must be a whole number of milliseconds from 1 to 2147483647/);
    expect(r.err).toMatch(/alerts\.timeoutMs: must be a whole number of milliseconds from 1 to 2147483647/);
  });

  it('models build on a missing warehouse says so and creates neither the file nor target/', async () => {
    const work = mkdtempSync(join(dir, 'missing-'));
    const db = join(work, 'nope.duckdb');
    const r = await vwh('models', 'build', '--db', db);
    expect(r.code).toBe(64);
    expect(r.err).toMatch(/No warehouse at .*nope\.duckdb/);
    expect(readdirSync(work)).toEqual([]);
  });

  it('an unknown command is a usage error with did-you-mean, --help or not (exit 64, not the general help and 0)', async () => {
    // `wrker`: a name no command will have, one edit from `worker` (issue 56 tried `vwh worker --help` before the
    // cluster's worker existed)
    for (const args of [['wrker', '--help'], ['wrker'], ['--log-format', 'human', 'wrker']]) {
      const r = await vwh(...args);
      expect(r.code, args.join(' ')).toBe(64);
      expect(r.err).toMatch(
        /^vwh: Unknown command "wrker"\. Did you mean worker\? Commands: run, schedule, .* \(vwh --help\)\. \[USAGE\]\n$/,
      );
    }
    const typo = await vwh('staus', '--help');
    expect(typo.code).toBe(64);
    expect(typo.err).toContain('Unknown command "staus". Did you mean status?');
    // the format chosen before any command: even this error is one JSON event with its code and exit code
    const json = await vwh('wrker', '--log-format', 'json');
    expect(JSON.parse(json.err)).toMatchObject({ level: 'error', code: 'USAGE', exit_code: 64 });
  });
});
