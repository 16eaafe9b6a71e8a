/**
 * The webhook receiver's journal: append-only NDJSON files (one per UTC day of receipt) that `vwh events listen`
 * writes and the next `vwh run` ingests into raw.webhook_events. The receiver never opens the warehouse, so it never
 * holds the write lock the nightly run needs. Each body is written once (its key is the SHA-256 of the exact body the
 * signature covers, so a new delivery id does not make a replay new) and fsynced before the sender gets its 200. A
 * line cut short by a crash was never acknowledged: readers skip it (the sender's retry brings it again), and the
 * receiver ends it with a newline when it starts, so the next entry is not glued to it.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, fsyncSync, openSync, readdirSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { makeFolders } from '../../core/folders.js';

export interface JournalEntry {
  /**
   * `sha256:<hex>` of `body`. Journals written before the body became the key hold `delivery:<X-Webhook-Delivery-Id>`
   * here; readers recompute the body's key with `bodyKey` rather than trust this one.
   */
  key: string;
  event: string;
  received_at: string;
  delivery_id: string | null;
  signed: boolean;
  /** The exact raw body (the signature was computed over it). */
  body: string;
}

const FILE = /^journal-\d{4}-\d{2}-\d{2}\.ndjson$/;
const READ_BYTES = 1 << 20;

/** The idempotency key of a delivery: the SHA-256 of its exact body. */
export function bodyKey(body: string | Buffer): string {
  return `sha256:${createHash('sha256').update(body).digest('hex')}`;
}

export function journalFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => FILE.test(f))
    .sort()
    .map((f) => join(dir, f));
}

/** A complete line of a journal file: its entry (undefined when the line is not JSON) and the offset after it. */
export interface JournalLine {
  file: string;
  /** Identifies the file's content: the SHA-256 of its first line. */
  head: string;
  end: number;
  entry: JournalEntry | undefined;
}

/** How far a file was read: `bytes` of complete lines of the file whose first line hashes to `head`. */
export interface JournalCursor {
  head: string;
  bytes: number;
}

/**
 * The complete lines of the journal, oldest file first, read 1 MiB at a time (memory does not grow with the
 * journal), each file from its cursor when it is still the file the cursor was taken on (same first line, a line
 * ending there), else from its start. A line is complete once its newline is written: a last line without one is
 * being written, or was cut short by a crash, and is left for the next read.
 */
export function* journalLines(
  dir: string,
  cursors: ReadonlyMap<string, JournalCursor> = new Map(),
): Generator<JournalLine> {
  for (const file of journalFiles(dir)) {
    const first = firstLine(file);
    if (first === undefined) continue;
    const head = bodyKey(first);
    const cursor = cursors.get(file);
    const start = cursor && cursor.head === head && endsLineAt(file, cursor.bytes) ? cursor.bytes : 0;
    for (const { text, end } of completeLines(file, start)) yield { file, head, end, entry: parseEntry(text) };
  }
}

function parseEntry(line: string): JournalEntry | undefined {
  if (!line.trim()) return undefined;
  try {
    return JSON.parse(line) as JournalEntry;
  } catch {
    return undefined; // a torn line: never acknowledged, so its sender retries
  }
}

/** Every complete entry of the journal, oldest file first. */
export function* journalEntries(dir: string): Generator<JournalEntry> {
  for (const line of journalLines(dir)) if (line.entry) yield line.entry;
}

/** Every complete entry of the journal, oldest file first (tests; the run reads `journalLines` in batches). */
export function readJournal(dir: string): JournalEntry[] {
  return [...journalEntries(dir)];
}

function endsLineAt(file: string, bytes: number): boolean {
  if (bytes <= 0) return bytes === 0;
  const fd = openSync(file, 'r');
  try {
    const last = Buffer.alloc(1);
    return fstatSync(fd).size >= bytes && readSync(fd, last, 0, 1, bytes - 1) === 1 && last[0] === 10;
  } finally {
    closeSync(fd);
  }
}

/** The file's first complete line, read 4 KiB at a time (undefined while it has none). */
function firstLine(file: string): string | undefined {
  const fd = openSync(file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(4096);
    const parts: Buffer[] = [];
    for (let position = 0; ; ) {
      const n = readSync(fd, chunk, 0, chunk.length, position);
      if (n === 0) return undefined;
      const nl = chunk.subarray(0, n).indexOf(10);
      parts.push(Buffer.from(chunk.subarray(0, nl === -1 ? n : nl)));
      if (nl !== -1) return Buffer.concat(parts).toString('utf8');
      position += n;
    }
  } finally {
    closeSync(fd);
  }
}

/** The file's complete lines from byte `start`, each with the offset just after its newline. */
function* completeLines(file: string, start: number): Generator<{ text: string; end: number }> {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    let carry: Buffer = Buffer.alloc(0);
    let position = start; // the file offset of carry[0]
    for (;;) {
      const n = readSync(fd, buffer, 0, READ_BYTES, position + carry.length);
      if (n === 0) return;
      const data = carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, n)]) : buffer.subarray(0, n);
      let from = 0;
      for (let nl = data.indexOf(10, from); nl !== -1; nl = data.indexOf(10, from)) {
        yield { text: data.toString('utf8', from, nl), end: position + nl + 1 };
        from = nl + 1;
      }
      carry = Buffer.from(data.subarray(from));
      position += from;
    }
  } finally {
    closeSync(fd);
  }
}

/** Ends a file whose last line was cut short by a crash, so the next append starts a line of its own. */
function endTornLine(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] !== 10) {
      writeSync(fd, '\n', size);
      fsyncSync(fd);
    }
  } finally {
    closeSync(fd);
  }
}

export class EventJournal {
  private readonly seen = new Set<string>();

  constructor(readonly dir: string) {
    makeFolders(dir);
    for (const file of journalFiles(dir)) endTornLine(file);
    for (const entry of journalEntries(dir)) this.seen.add(bodyKey(entry.body));
  }

  /** Writes the entry durably under its body's key; false when that body was journaled before (a retry, a replay). */
  append(delivery: Omit<JournalEntry, 'key'>): boolean {
    const { event, received_at, delivery_id, signed, body } = delivery;
    const entry: JournalEntry = { key: bodyKey(body), event, received_at, delivery_id, signed, body };
    if (this.seen.has(entry.key)) return false;
    const fd = openSync(join(this.dir, `journal-${entry.received_at.slice(0, 10)}.ndjson`), 'a');
    try {
      writeSync(fd, `${JSON.stringify(entry)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    this.seen.add(entry.key);
    return true;
  }
}
