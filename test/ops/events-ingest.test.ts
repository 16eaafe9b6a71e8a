/**
 * The run's `events` stage ingesting the webhook journal: 100,000 journaled events in one run under the default
 * memory limit (1,000 made DuckDB run out of its 256 MB with the row-by-row INSERTs in one transaction); a `vwh run`
 * killed with SIGKILL mid-ingest keeps the batches it committed and the next run adds the rest, nothing twice; a
 * journal and a warehouse of an older version (deliveries keyed by their unsigned delivery id, one signed body stored
 * three times) end with one row per event; a file replaced under its name is read again whole; a line cut short by a
 * crash does not swallow the next entry.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INGEST_ENTRIES } from '../../src/ops/events/ingest.js';
import { bodyKey, EventJournal, type JournalEntry, readJournal } from '../../src/ops/events/journal.js';
import { withOps } from '../../src/ops/ledger.js';
import { eventsStage } from '../../src/ops/stages/events.js';
import { Database, DEFAULT_RESOURCES, duckdbOptions } from '../../src/warehouse/duckdb.js';
import { defaultMigrationsDir, migrate, readMigrations } from '../../src/warehouse/migrate.js';
import { stageContext, tempDir, writeConfig } from './support.js';

const DAY = '2026-11-24';

/** A checkpoint delivery as the service sends it (about 450 bytes). */
function checkpoint(i: number, at = Date.UTC(2026, 10, 24) + i * 1000): string {
  const id = `3f1c${String(i).padStart(8, '0')}-aaaa-4bbb-8ccc-0123456789ab`;
  return JSON.stringify({
    event: 'action.checkpoint',
    timestamp: new Date(at).toISOString(),
    data: {
      action_id: id,
      workflow_id: id.replace('3f1c', '9a1c'),
      checkpoint: 'outline',
      content: '# Outline\n\n- Why it matters\n- How to compare\n- What to pick',
      options: [
        { action: 'approve', label: 'Approve' },
        { action: 'edit', label: 'Edit' },
        { action: 'regenerate', label: 'Regenerate' },
        { action: 'reject', label: 'Reject' },
      ],
    },
  });
}

function entry(body: string, key = bodyKey(body), deliveryId: string | null = null): JournalEntry {
  const event = (JSON.parse(body) as { event: string }).event;
  return { key, event, received_at: `${DAY}T12:00:00.000Z`, delivery_id: deliveryId, signed: true, body };
}

function writeJournal(dir: string, entries: Iterable<JournalEntry>): void {
  mkdirSync(dir, { recursive: true });
  const lines: string[] = [];
  for (const e of entries) lines.push(JSON.stringify(e));
  writeFileSync(join(dir, `journal-${DAY}.ndjson`), `${lines.join('\n')}\n`);
}

function* checkpoints(n: number): Generator<JournalEntry> {
  for (let i = 0; i < n; i++) yield entry(checkpoint(i));
}

async function tally(db: string) {
  return withOps(db, async ({ session }) => {
    const row = await session.one<{ rows: number; actions: number; limit: string }>(
      `select count(*)::int as rows, count(distinct (action_id, event, event_timestamp))::int as actions,
              current_setting('memory_limit') as limit
         from raw.webhook_events`,
    );
    return row as { rows: number; actions: number; limit: string };
  });
}

describe('the events stage ingests the journal in bounded batches', () => {
  it('100,000 journaled events in one run, under the default memory limit, and none again on the next', async () => {
    const t = tempDir('vwh-ingest-');
    try {
      writeJournal(join(t.dir, 'events'), checkpoints(100_000));
      const first = await eventsStage.run(stageContext(t.db));
      expect(first.counts).toMatchObject({ journaled: 100_000, new: 100_000, duplicate: 0 });
      // The warehouse ran with the default limit (256MB = 244.1 MiB), the one 1,000 deliveries exhausted before.
      expect(DEFAULT_RESOURCES.memoryLimit).toBe('256MB');
      expect(await tally(t.db)).toEqual({ rows: 100_000, actions: 100_000, limit: '244.1 MiB' });
      // The next run reads only what was appended since (ops.webhook_journal, the cursor of each file).
      const line = JSON.stringify(entry(checkpoint(100_000)));
      appendFileSync(join(t.dir, 'events', `journal-${DAY}.ndjson`), `${line}\n`);
      const second = await eventsStage.run(stageContext(t.db));
      expect(second.counts).toMatchObject({ journaled: 1, new: 1, duplicate: 0 });
      expect((await tally(t.db)).rows).toBe(100_001);
    } finally {
      t.cleanup();
    }
  }, 120_000);

  it('a vwh run killed with SIGKILL mid-ingest keeps whole batches; the next run adds the rest, nothing twice', async () => {
    const t = tempDir('vwh-ingest-kill-');
    try {
      const total = 6 * INGEST_ENTRIES;
      writeJournal(join(t.dir, 'events'), checkpoints(total));
      const config = writeConfig(t.db, {});
      const child = spawn(
        process.execPath,
        [
          'dist/src/cli/bin.js',
          'run',
          '--embedded',
          '--config',
          config,
          '--db',
          t.db,
          '--log-format',
          'json',
          '--seed',
          '5',
          '--projects',
          '1',
          '--prompts',
          '2',
          '--history-days',
          '5',
          '--today',
          '2026-11-25',
        ],
        { env: { ...process.env, VWH_API_KEY: '' } },
      );
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.on('exit', (_code, signal) => resolve(signal)),
      );
      let log = '';
      child.stderr.on('data', (d) => {
        log += d;
        // The first batch is committed: kill the run while the others are still to land.
        if (log.includes('"webhook events ingested"') && child.exitCode === null) child.kill('SIGKILL');
      });
      expect(await exited).toBe('SIGKILL');
      const landed = (await tally(t.db)).rows;
      expect(landed).toBeGreaterThan(0);
      expect(landed).toBeLessThan(total);
      expect(landed % INGEST_ENTRIES).toBe(0);
      // The next run resumes after the batches the killed one committed (their cursor committed with them).
      const next = await eventsStage.run(stageContext(t.db));
      expect(next.counts).toMatchObject({ journaled: total - landed, new: total - landed, duplicate: 0 });
      expect(await tally(t.db)).toMatchObject({ rows: total, actions: total });
    } finally {
      t.cleanup();
    }
  }, 120_000);
});

describe('a journal and a warehouse of an older version', () => {
  it('end with one row per event: copies stored under new delivery ids are removed and not ingested again', async () => {
    const t = tempDir('vwh-ingest-old-');
    try {
      // The warehouse as the previous version left it: migrated up to 013, the replayed body stored three times.
      const oldSql = join(t.dir, 'sql-013');
      mkdirSync(oldSql);
      for (const m of readMigrations().filter((m) => m.version <= 13)) {
        const file = `${String(m.version).padStart(3, '0')}_${m.name}.sql`;
        copyFileSync(join(defaultMigrationsDir(), file), join(oldSql, file));
      }
      const completed = JSON.stringify({
        event: 'action.completed',
        timestamp: '2026-11-24T10:00:00Z',
        data: { action_id: 'a-1', workflow_id: 'w-1', result: { title: 't', content: 'c' } },
      });
      const old = ['d-1', 'd-x1', 'd-x2'].map((id) => entry(completed, `delivery:${id}`, id));
      const database = await Database.open(t.db, duckdbOptions(DEFAULT_RESOURCES));
      try {
        const session = await database.session.inUtc();
        await migrate(session, oldSql);
        for (const e of old) {
          await session.run(
            `insert into raw.webhook_events (event_key, event, received_at, delivery_id, signed, action_id, workflow_id,
               body, _ingested_at, team_id) values (?, ?, ?::timestamptz, ?, true, 'a-1', 'w-1', ?::json, now(), 'demo')`,
            [e.key, e.event, e.received_at, e.delivery_id, e.body],
          );
        }
      } finally {
        database.close();
      }
      // Its journal: the three copies, the same event in a body written differently, and a new event of the action.
      const reformatted = JSON.stringify(JSON.parse(completed), null, 1);
      const later = JSON.stringify({
        event: 'action.failed',
        timestamp: '2026-11-24T11:00:00Z',
        data: { action_id: 'a-1', workflow_id: 'w-1', error: 'x' },
      });
      writeJournal(join(t.dir, 'events'), [...old, entry(reformatted), entry(later, 'delivery:d-2', 'd-2')]);

      const ran = await eventsStage.run(stageContext(t.db));
      expect(ran.counts).toMatchObject({ journaled: 5, new: 1, duplicate: 4 });
      const rows = await withOps(t.db, ({ session }) =>
        session.all<{ event: string; event_key: string; at: string }>(
          `select event, event_key, strftime(event_timestamp, '%Y-%m-%dT%H:%M:%S') as at
             from raw.webhook_events where action_id = 'a-1' order by event`,
        ),
      );
      expect(rows).toEqual([
        { event: 'action.completed', event_key: 'delivery:d-1', at: '2026-11-24T10:00:00' },
        { event: 'action.failed', event_key: bodyKey(later), at: '2026-11-24T11:00:00' },
      ]);
      expect((await eventsStage.run(stageContext(t.db))).counts).toMatchObject({ journaled: 0, new: 0 });
      // Read again whole (the cursor lost, as when a file is replaced): nothing is added twice.
      await withOps(t.db, ({ session }) => session.run('delete from ops.webhook_journal'));
      expect((await eventsStage.run(stageContext(t.db))).counts).toMatchObject({ journaled: 5, new: 0, duplicate: 5 });
    } finally {
      t.cleanup();
    }
  });

  it('a journal file replaced under the same name is read again whole, not from the old cursor', async () => {
    const t = tempDir('vwh-journal-replaced-');
    try {
      const dir = join(t.dir, 'events');
      writeJournal(
        dir,
        [0, 1].map((i) => entry(checkpoint(i))),
      );
      expect((await eventsStage.run(stageContext(t.db))).counts).toMatchObject({ journaled: 2, new: 2 });
      // Other entries of the same length: a line ends exactly where the old file's cursor stands.
      writeJournal(
        dir,
        [10, 11, 12].map((i) => entry(checkpoint(i))),
      );
      expect((await eventsStage.run(stageContext(t.db))).counts).toMatchObject({ journaled: 3, new: 3 });
      expect((await tally(t.db)).rows).toBe(5);
    } finally {
      t.cleanup();
    }
  });

  it('a line cut short by a crash does not swallow the entry the restarted receiver appends after it', () => {
    const t = tempDir('vwh-journal-torn-');
    try {
      const dir = join(t.dir, 'events');
      const first = entry(checkpoint(1));
      const file = join(dir, `journal-${DAY}.ndjson`);
      mkdirSync(dir);
      writeFileSync(file, `${JSON.stringify(first)}\n${JSON.stringify(entry(checkpoint(2))).slice(0, 80)}`);
      const second = entry(checkpoint(3));
      expect(new EventJournal(dir).append(second)).toBe(true);
      expect(readJournal(dir).map((e) => e.key)).toEqual([first.key, second.key]);
      expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(4);
    } finally {
      t.cleanup();
    }
  });
});
