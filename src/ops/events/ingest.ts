/**
 * The journal of `vwh events listen` into raw.webhook_events, through the bulk loader in bounded batches: each batch
 * (at most INGEST_ENTRIES entries or INGEST_BYTES of bodies) is one transaction with the journal's cursor
 * (ops.webhook_journal: how far each file was read), so memory holds one batch whatever the journal's size, a run
 * reads only what was appended since the last one, and a run killed mid-way resumes after the batches it committed.
 * Idempotent besides, for a journal read again (a file replaced, a cursor lost, an older version's journal): an entry
 * is skipped when the SHA-256 of its body is already stored, when its journal key is (`delivery:…` rows of older
 * versions), or, for an action event, when its (action_id, event, timestamp) is (the same event delivered under other
 * ids, or in a body written differently).
 */
import type { Logger } from '../../core/log.js';
import type { RawRow, RunColumns } from '../../warehouse/load-types.js';
import type { WarehouseSession } from '../../warehouse/warehouse.js';
import { bodyKey, type JournalCursor, type JournalEntry, journalLines } from './journal.js';

export const INGEST_ENTRIES = 5_000;
/** Bodies can be up to `events.maxBodyBytes` (a checkpoint carries a whole draft): a batch closes at this many bytes. */
export const INGEST_BYTES = 8 << 20;

export interface IngestCounts {
  /** Entries read from the journal (those appended since the last run's cursor). */
  journaled: number;
  /** Rows added to raw.webhook_events. */
  new: number;
  /** Entries already stored (a retry, a replay, an entry an earlier run ingested). */
  duplicate: number;
}

interface Candidate {
  row: RawRow;
  /** The keys that make it already stored: its body's, its journal key, its (action_id, event, timestamp). */
  keys: string[];
}

const triple = (actionId: string, event: string, ms: number) => JSON.stringify([actionId, event, ms]);

function candidate(entry: JournalEntry, ingestedAt: Date): Candidate | undefined {
  let body: { project_id?: unknown; timestamp?: unknown; data?: { action_id?: unknown; workflow_id?: unknown } };
  try {
    body = JSON.parse(entry.body);
  } catch {
    return undefined;
  }
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const actionId = text(body.data?.action_id);
  const ms = typeof body.timestamp === 'string' ? Date.parse(body.timestamp) : Number.NaN;
  const key = bodyKey(entry.body);
  const keys = [key, entry.key];
  if (actionId && Number.isFinite(ms)) keys.push(triple(actionId, entry.event, ms));
  return {
    keys,
    row: {
      event_key: key,
      event: entry.event,
      received_at: entry.received_at,
      delivery_id: entry.delivery_id,
      signed: entry.signed,
      action_id: actionId,
      workflow_id: text(body.data?.workflow_id),
      project_id: text(body.project_id),
      confirmation: entry.event === 'project.bootstrap' ? 'pending' : null,
      body: entry.body,
      event_timestamp: Number.isFinite(ms) ? new Date(ms).toISOString() : null,
      _ingested_at: ingestedAt,
    },
  };
}

/** The keys among `batch`'s that raw.webhook_events already holds. */
async function storedKeys(w: WarehouseSession, batch: readonly Candidate[]): Promise<Set<string>> {
  const eventKeys = batch.flatMap((c) => c.keys.slice(0, 2));
  const actionIds = [...new Set(batch.map((c) => c.row.action_id).filter((a): a is string => typeof a === 'string'))];
  const rows = await w.session.all<{ event_key: string; action_id: string | null; event: string; ms: number | null }>(
    `select event_key, action_id, event, epoch_ms(event_timestamp)::double as ms from raw.webhook_events
      where event_key in (select unnest(from_json($1, '["VARCHAR"]')))
         or action_id in (select unnest(from_json($2, '["VARCHAR"]')))`,
    [JSON.stringify(eventKeys), JSON.stringify(actionIds)],
  );
  const stored = new Set<string>();
  for (const r of rows) {
    stored.add(r.event_key);
    if (r.action_id && r.ms !== null) stored.add(triple(r.action_id, r.event, r.ms));
  }
  return stored;
}

/** The cursor of each journal file read before. */
async function readCursors(w: WarehouseSession): Promise<Map<string, JournalCursor>> {
  const rows = await w.ops.selectFrom('ops.webhook_journal').select(['file', 'head', 'bytes']).execute();
  return new Map(rows.map((r) => [r.file, { head: r.head, bytes: Number(r.bytes) }]));
}

/**
 * Lands one batch, what is neither stored nor earlier in the batch, and moves the cursors past it, in one loader
 * transaction.
 */
async function land(
  w: WarehouseSession,
  batch: readonly Candidate[],
  read: ReadonlyMap<string, JournalCursor>,
  run: RunColumns,
): Promise<number> {
  const stored = batch.length > 0 ? await storedKeys(w, batch) : new Set<string>();
  const fresh: RawRow[] = [];
  for (const c of batch) {
    if (c.keys.some((k) => stored.has(k))) continue;
    for (const k of c.keys) stored.add(k);
    fresh.push(c.row);
  }
  const cursors = [...read].map(([file, { head, bytes }]) => ({
    file,
    head,
    bytes,
    updated_at: run._extracted_at,
    run_id: run._sync_run_id,
  }));
  await w.loader.loadUnit([{ table: 'raw.webhook_events', rows: fresh }], run, async () => {
    await w.ops
      .deleteFrom('ops.webhook_journal')
      .where('file', 'in', [...read.keys()])
      .execute();
    await w.ops.insertInto('ops.webhook_journal').values(cursors).execute();
  });
  return fresh.length;
}

export async function ingestJournal(
  w: WarehouseSession,
  dir: string,
  run: RunColumns,
  logger: Logger,
): Promise<IngestCounts> {
  const counts: IngestCounts = { journaled: 0, new: 0, duplicate: 0 };
  let batch: Candidate[] = [];
  let read = new Map<string, JournalCursor>();
  let bytes = 0;
  const flush = async () => {
    if (read.size === 0) return;
    const added = await land(w, batch, read, run);
    counts.new += added;
    counts.duplicate += batch.length - added;
    logger.info('webhook events ingested', { batch: batch.length, new: added, journaled: counts.journaled });
    batch = [];
    read = new Map();
    bytes = 0;
  };
  for (const line of journalLines(dir, await readCursors(w))) {
    read.set(line.file, { head: line.head, bytes: line.end });
    const { entry } = line;
    const c = entry && candidate(entry, run._extracted_at);
    if (!entry || !c) continue;
    counts.journaled += 1;
    batch.push(c);
    bytes += entry.body.length;
    if (batch.length >= INGEST_ENTRIES || bytes >= INGEST_BYTES) await flush();
  }
  await flush();
  return counts;
}
