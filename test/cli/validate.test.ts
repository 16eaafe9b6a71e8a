/**
 * Every flag, environment variable and config value goes through one validation: exit 64 and a message naming the
 * input and what a valid value looks like, before anything is opened, created or fetched.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';

const dir = mkdtempSync(join(tmpdir(), 'vwh-validate-'));
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

  it('the config file is checked with the same schemas: an impossible day or a bad URL exits 64 naming the field', async () => {
    env();
    const config = join(dir, 'bad.config.json');
    writeFileSync(config, JSON.stringify({ since: '2026-02-30', baseUrl: 'file:///etc' }));
    const r = await vwh('sync', '--plan', '--config', config);
    expect(r.code).toBe(64);
    expect(r.err).toMatch(/since: must be a calendar day that exists, got "2026-02-30"/);
    expect(r.err).toMatch(/baseUrl: must be an http:\/\/ or https:\/\/ URL/);
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
    // `wrker`: a name no command will have (issue 56 tried `vwh worker --help`)
    for (const args of [['wrker', '--help'], ['wrker'], ['--log-format', 'human', 'wrker']]) {
      const r = await vwh(...args);
      expect(r.code, args.join(' ')).toBe(64);
      expect(r.err).toMatch(
        /^vwh: Unknown command "wrker"\. Commands: run, schedule, .* \(vwh --help\)\. \[USAGE\]\n$/,
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
