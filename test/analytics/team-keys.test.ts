/**
 * Several teams in one warehouse: every model is keyed by team where its rows are, so a team's tables hold what a
 * warehouse of that team alone holds. Two cases: the same key synced under two team names (the same ids in both:
 * unique keys without team_id fail their audits, joins on project or chat ids cross teams), and two genuinely
 * different teams (two keys, two worlds of different seeds).
 */
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { addDays } from '../../src/core/days.js';
import { silentLogger } from '../../src/core/log.js';
import { loadProject } from '../../src/models/project.js';
import { type RunResults, runProject } from '../../src/models/runner.js';
import { type ReferenceServer, startReferenceServer } from '../../src/reference/index.js';
import { Database } from '../../src/warehouse/duckdb.js';
import { TODAY, tempDir } from '../fixtures.js';
import { MODELS_DIR, syncInto } from './support.js';

const SHAPE = { projects: 2, prompts: 4, historyDays: 30 } as const;
const dir = tempDir('vwh-team-keys-').dir;
/** World A synced as `default` alone; world B synced as `beta` alone. */
const aAlone = join(dir, 'a-alone.duckdb');
const bAlone = join(dir, 'b-alone.duckdb');
/**
 * Three teams in one warehouse: world A's key synced as `default`, then again as `acme` (the same ids twice), and
 * world B (another key, another seed) as `beta`.
 */
const shared = join(dir, 'shared.duckdb');
let worldA: ReferenceServer;
let worldB: ReferenceServer;
const builds = new Map<string, RunResults>();
const built = (path: string) => builds.get(path) as RunResults;

const sync = (path: string, server: ReferenceServer, teamId: string) =>
  syncInto(server.url, server.demoApiKey ?? '', path, TODAY, teamId);

async function build(path: string): Promise<void> {
  const db = await Database.open(path);
  try {
    const results = await runProject(db, await loadProject(MODELS_DIR), {
      command: 'build',
      threads: 2,
      clock: new ManualClock(Date.parse(`${addDays(TODAY, 1)}T01:00:00Z`)),
      logger: silentLogger,
    });
    builds.set(path, results);
  } finally {
    db.close();
  }
}

/** What `vwh models build` exits with: 2 when a node failed (error audit) or errored, else 0. */
const exitCode = (r: RunResults) => (r.results.some((n) => n.status === 'fail' || n.status === 'error') ? 2 : 0);

/** The audits (and singular tests) that did not pass, as `node: audit`. */
const notPassing = (r: RunResults) =>
  new Set(r.results.flatMap((n) => n.audits.filter((a) => a.status !== 'pass').map((a) => `${n.id}: ${a.name}`)));

/**
 * The relations of team `team` in warehouse `path` that differ from those of team `aloneTeam` in `alone` (as
 * multisets of rows, without the team and the sync's run columns), and the relations that hold rows but no team_id.
 */
async function differences(path: string, team: string, alone: string, aloneTeam: string): Promise<string[]> {
  const db = await Database.open(path, { access_mode: 'READ_ONLY' });
  try {
    await db.session.run(`ATTACH '${alone}' AS alone (READ_ONLY)`);
    const relations = await db.session.all<{ relation: string }>(
      `select distinct schema_name || '.' || table_name as relation from duckdb_columns()
       where database_name = 'alone' and schema_name in ('staging', 'intermediate', 'marts', 'snapshots') order by 1`,
    );
    expect(relations.length).toBeGreaterThan(40);
    const out: string[] = [];
    for (const { relation } of relations) {
      const columns = await db.session.all<{ name: string; type: string }>(
        `select column_name as name, data_type as type from duckdb_columns()
         where database_name = 'alone' and schema_name || '.' || table_name = '${relation}' order by column_index`,
      );
      const hasTeam = columns.some((c) => c.name === 'team_id');
      const kept = columns
        .filter((c) => !['team_id', '_sync_run_id', '_extracted_at'].includes(c.name))
        .map((c) => (/^(DOUBLE|FLOAT|REAL)$/.test(c.type) ? `round("${c.name}", 9)` : `"${c.name}"`))
        .join(', ');
      if (!hasTeam) {
        if (Number(await db.session.scalar<bigint>(`select count(*) from alone.${relation}`)) > 0) {
          out.push(`${relation}: rows but no team_id`);
        }
        continue;
      }
      const mine = `select ${kept} from ${relation} where team_id = '${team}'`;
      const theirs = `select ${kept} from alone.${relation} where team_id = '${aloneTeam}'`;
      const n = await db.session.scalar<bigint>(
        `select count(*) from ((${mine} except all ${theirs}) union all (${theirs} except all ${mine}))`,
      );
      if (Number(n) > 0) out.push(`${relation}: ${n} rows differ`);
    }
    return out;
  } finally {
    db.close();
  }
}

/** The models whose keys once lacked team_id. */
const TEAMLESS_ONCE = [
  'intermediate.int_opportunity_chats',
  'intermediate.int_chat_competitors',
  'intermediate.int_chat_domains',
  'intermediate.int_source_domain_catalog',
  'intermediate.int_action_targets',
  'marts.action_impact',
  'marts.competitor_gaps',
  'marts.prompt_opportunities',
  'marts.source_domains_daily',
  'marts.source_opportunities',
];

/** Rows per team of those models: the comparisons below must have rows to compare. */
async function rowsPerTeam(path: string): Promise<Record<string, number>> {
  const db = await Database.open(path, { access_mode: 'READ_ONLY' });
  try {
    const counts = await db.session.all<{ k: string; n: bigint }>(
      `${TEAMLESS_ONCE.map((m) => `select team_id || ' ' || '${m}' as k, count(*) as n from ${m} group by all`).join(
        ' union all ',
      )} order by 1`,
    );
    return Object.fromEntries(counts.map((c) => [c.k, Number(c.n)]));
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  const start = (seed: number) =>
    startReferenceServer({ port: 0, today: TODAY, demo: true, rateWindowMs: 200, seed, ...SHAPE });
  [worldA, worldB] = await Promise.all([start(11), start(12)]);
  await Promise.all([sync(aAlone, worldA, 'default'), sync(bAlone, worldB, 'beta')]);
  copyFileSync(aAlone, shared);
  await sync(shared, worldA, 'acme');
  await sync(shared, worldB, 'beta');
  for (const path of [aAlone, bAlone, shared]) await build(path);
}, 600_000);

afterAll(async () => {
  await Promise.all([worldA?.close(), worldB?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('three teams in one warehouse, two of them on one key', () => {
  it('build with every audit passing (exit 0), as each team alone does', () => {
    expect(exitCode(built(aAlone))).toBe(0);
    expect(exitCode(built(bAlone))).toBe(0);
    expect(exitCode(built(shared))).toBe(0);
    const alone = new Set([...notPassing(built(aAlone)), ...notPassing(built(bAlone))]);
    expect([...notPassing(built(shared))].filter((a) => !alone.has(a))).toEqual([]);
  });

  it("give the key's two team names each the tables the team's lone build has", async () => {
    const counts = await rowsPerTeam(shared);
    for (const team of ['default', 'acme', 'beta']) {
      for (const model of TEAMLESS_ONCE) expect(counts[`${team} ${model}`], `${team} ${model}`).toBeGreaterThan(0);
    }
    expect(await differences(shared, 'default', aAlone, 'default')).toEqual([]);
    expect(await differences(shared, 'acme', aAlone, 'default')).toEqual([]);
  });

  it('give a team with its own key and world the tables it gets alone', async () => {
    expect(await differences(shared, 'beta', bAlone, 'beta')).toEqual([]);
  });
});
