/**
 * The webhook receiver's journal: append-only NDJSON files (one per UTC day of receipt) that `vwh events listen`
 * writes and the next `vwh run` ingests into raw.webhook_events. The receiver never opens the warehouse, so it never
 * holds the write lock the nightly run needs. Each delivery is written once (by its key: the delivery id, else the
 * body's SHA-256) and fsynced before the sender gets its 200; a line cut short by a crash was never acknowledged, so
 * readers skip it and the sender's retry brings it again.
 */
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { makeFolders } from '../../core/folders.js';

export interface JournalEntry {
  key: string;
  event: string;
  received_at: string;
  delivery_id: string | null;
  signed: boolean;
  /** The exact raw body (the signature was computed over it). */
  body: string;
}

const FILE = /^journal-\d{4}-\d{2}-\d{2}\.ndjson$/;

export function journalFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => FILE.test(f))
    .sort()
    .map((f) => join(dir, f));
}

/** Every complete entry of the journal, oldest file first. */
export function readJournal(dir: string): JournalEntry[] {
  const out: JournalEntry[] = [];
  for (const file of journalFiles(dir)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        out.push(JSON.parse(line) as JournalEntry);
      } catch {
        // a torn last line: never acknowledged, so its sender retries
      }
    }
  }
  return out;
}

export class EventJournal {
  private readonly seen: Set<string>;

  constructor(readonly dir: string) {
    makeFolders(dir);
    this.seen = new Set(readJournal(dir).map((e) => e.key));
  }

  /** Writes the entry durably; false when its key was journaled before (a redelivery). */
  append(entry: JournalEntry): boolean {
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
