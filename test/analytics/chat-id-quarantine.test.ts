/**
 * An answer id landed under two parents (project, prompt) is two answers the API gave one id: staging must not keep
 * one of them at random. Both go to staging.chats_quarantine, its warn audit flags them, and no other model's
 * outcome changes (a 32-bit id hash in the reference once made 18 of 489,822 chat ids collide and failed the build).
 * The warehouse is hand-filled, just coherent enough for every model to build (two projects with their prompts, one
 * answer per prompt and provider, the own brand not named): the test compares a build with the reused id to one
 * without.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { loadProject } from '../../src/models/project.js';
import { type RunResults, runProject } from '../../src/models/runner.js';
import { Warehouse } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../fixtures.js';
import { MODELS_DIR } from './support.js';

let dir: string;
let warehouse: Warehouse;
let before: RunResults;
let after: RunResults;

const chat = (
  id: string,
  projectId: string,
  promptId: string,
  content: string,
  extractedAt: string,
  provider = 'chatgpt',
) =>
  `('t', '${projectId}', '${promptId}', '${id}', timestamp '2026-01-01 05:00:00', date '2026-01-01', false, null, 'x',
    '${provider}', 'm', '${content}', 'a prompt', null, false, false, null, 'r1', timestamp '${extractedAt}')`;
const project = (id: string) =>
  `('t', '${id}', 'Project ${id}', 'Brand ${id}', null, null, null, [], timestamp '2025-12-01 00:00:00', null, 'r1',
    timestamp '2026-01-01 07:00:00')`;
const prompt = (id: string, projectId: string) =>
  `('t', '${id}', '${projectId}', 'a prompt', 'active', null, null, null, null, null, null, null, null, null,
    timestamp '2025-12-01 00:00:00', null, 'r1', timestamp '2026-01-01 07:00:00')`;

beforeAll(async () => {
  dir = tempDir('vwh-quarantine-').dir;
  warehouse = await Warehouse.open(join(dir, 'warehouse.duckdb'));
  await warehouse.database.session.run(`insert into raw.projects values ${project('p1')}, ${project('p2')}`);
  await warehouse.database.session.run(`insert into raw.prompts values ${prompt('q1', 'p1')}, ${prompt('q2', 'p2')}`);
  await warehouse.database.session.run(
    `insert into raw.chats values
     ${chat('k1', 'p1', 'q1', 'an answer to q1', '2026-01-01 07:00:00')},
     ${chat('k1', 'p1', 'q1', 'an answer to q1, re-landed', '2026-01-02 07:00:00')},
     ${chat('k2', 'p1', 'q1', 'another answer to q1', '2026-01-01 07:00:00', 'gemini')},
     ${chat('k3', 'p2', 'q2', 'an answer to q2', '2026-01-01 07:00:00')}`,
  );
  const buildAll = async () =>
    runProject(warehouse.database, await loadProject(MODELS_DIR), {
      command: 'build',
      threads: 2,
      clock: new ManualClock(Date.parse('2026-01-02T01:00:00Z')),
      logger: silentLogger,
    });
  before = await buildAll();
  // The API reuses k1 for an answer of another project's prompt.
  await warehouse.database.session.run(
    `insert into raw.chats values ${chat('k1', 'p2', 'q2', 'an answer to q2', '2026-01-01 07:00:00')}`,
  );
  after = await buildAll();
}, 180_000);

afterAll(() => {
  warehouse?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('an answer id landed under two parents', () => {
  it('changes no outcome but the quarantine, which warns through its audit', () => {
    const outcomes = (r: RunResults) => new Map(r.results.map((n) => [n.id, n.status]));
    const quarantine = after.results.find((n) => n.id === 'staging.chats_quarantine');
    expect([...outcomes(before)].filter(([, status]) => status !== 'success' && status !== 'warn')).toEqual([]);
    expect(outcomes(before).get('staging.chats_quarantine')).toBe('success');
    expect(quarantine?.status).toBe('warn');
    expect(quarantine?.audits.filter((a) => a.status !== 'pass').map((a) => a.name)).toEqual([
      'chat_ids_under_two_parents',
    ]);
    const changed = [...outcomes(after)].filter(([id, status]) => outcomes(before).get(id) !== status);
    expect(changed).toEqual([['staging.chats_quarantine', 'warn']]);
  });

  it('keeps neither version in staging.chats, and the newest of each parent in the quarantine', async () => {
    const db = warehouse.database;
    expect(await db.session.all('select chat_id from staging.chats order by chat_id')).toEqual([
      { chat_id: 'k2' },
      { chat_id: 'k3' },
    ]);
    const quarantined = await db.session.all<{ prompt_id: string; full_content: string; parents: bigint | number }>(
      "select prompt_id, full_content, parents from staging.chats_quarantine where chat_id = 'k1' order by prompt_id",
    );
    expect(quarantined.map((q) => [q.prompt_id, q.full_content, Number(q.parents)])).toEqual([
      ['q1', 'an answer to q1, re-landed', 2],
      ['q2', 'an answer to q2', 2],
    ]);
  });
});
