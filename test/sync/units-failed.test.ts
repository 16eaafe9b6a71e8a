/**
 * A sync whose units failed ends with a stable code a script can match (issue 55): exit 1 and `[UNITS_FAILED]`
 * on its last line, after the failed units themselves; the units that succeeded landed. The reference server's
 * fault injection answers 5xx to every chats request.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { control, type ReferenceServer } from '../../src/reference/index.js';
import { CLI_COMMON, openWarehouse, query, startWorld, tempDir } from './support.js';

let server: ReferenceServer;
let tmp: ReturnType<typeof tempDir>;
const saved = { ...process.env };

beforeAll(async () => {
  server = await startWorld({ projects: 1, prompts: 2, historyDays: 4 });
  tmp = tempDir();
});
afterAll(async () => {
  process.env = { ...saved };
  await server.close();
  tmp.cleanup();
});

/** `vwh sync …` in this process: its exit code and what it wrote to stderr. */
async function sync(...args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    return { code: await main(['node', 'vwh', 'sync', '--db', tmp.db, ...CLI_COMMON, ...args]), stderr };
  } finally {
    vi.restoreAllMocks();
  }
}

describe('vwh sync with failed units', () => {
  it('exits 1 with [UNITS_FAILED] and keeps what succeeded', async () => {
    Object.assign(process.env, {
      VWH_API_KEY: server.demoApiKey ?? '',
      VWH_BASE_URL: server.baseUrl,
      VWH_LOG_LEVEL: 'error',
    });
    control.setFaults(server.state, '5xx=1@/projects/*/prompts/*/chats');
    let ran: { code: number; stderr: string };
    try {
      ran = await sync('--streams', 'projects,prompts,chats');
    } finally {
      control.setFaults(server.state, null);
    }
    const { code, stderr } = ran;
    expect(code).toBe(1);
    // --log-format json: one event a line, the problems last
    const messages = stderr
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages.some((m) => /unit chats:.* failed/.test(m))).toBe(true);
    expect(messages.at(-1)).toMatch(
      /^team default: 2 units failed \(each unit that succeeded landed\).*\[UNITS_FAILED\]$/,
    );
    const warehouse = await openWarehouse(tmp.db);
    try {
      const [prompts] = await query<{ n: number }>(warehouse, 'select count(*)::int as n from raw.prompts');
      expect(prompts?.n).toBe(2);
    } finally {
      warehouse.close();
    }
  }, 120_000);

  it('names a 10 kB --projects value cut to 80 characters with its length, not whole', async () => {
    const { code, stderr } = await sync('--streams', 'projects', '--projects', 'q'.repeat(10_000));
    expect(code).toBe(2);
    const messages = stderr
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages).toContainEqual(expect.stringContaining(`project "${'q'.repeat(80)}"… (10000 characters) skipped`));
    expect(stderr).not.toContain('q'.repeat(81));
  }, 60_000);
});
