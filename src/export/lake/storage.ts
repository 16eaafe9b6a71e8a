/**
 * What the lake's content hashes are reused on: DuckDB's storage of a table, row group by row group. A row group's
 * print is its column segments as `pragma_storage_info` lists them (type, count, compression, zonemap, block and
 * offset) with the checksum DuckDB wrote at the head of each of their blocks (a 64-bit checksum of the block's
 * bytes: a function of the content, as the row hash is), and which of its rows are live (their count and the sum of
 * their offsets in it: a DELETE leaves the segments as they were); not its place in the table, which a checkpoint
 * that merges the partly filled row groups before it moves (the blocks stay). A row group whose print is the one
 * recorded when a partition was last hashed holds the same rows; a partition all of whose row groups (those whose
 * date zonemap reaches its month) print as recorded is unchanged, whoever wrote the table: the models runner, a
 * `--full-refresh`, an UPDATE by hand (the block a segment is rewritten to may be one a segment of the table had
 * before, but not with the same bytes).
 *
 * Anything not proven so gives no print, and the table is hashed row by row as before: a storage format this
 * version does not know (the file's version, an encrypted file), a table with changes not yet checkpointed (in the
 * WAL: segments not persistent, or with updates), a row group whose dates the zonemap does not bound.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { groupBy } from '../../core/group.js';
import { quoteLiteral } from '../../core/sql.js';
import type { Session } from '../../warehouse/session.js';
import { qualified } from '../tables.js';

/** DuckDB's storage format version this reader knows (DuckDB 0.10 to 1.5 write it). */
const STORAGE_VERSION = 64n;
/** The file's main header and its two database headers, each 4 KiB, come before the first block. */
const HEADER_SIZE = 4096;
const BLOCKS_START = 3 * HEADER_SIZE;
/** Row ids per bin of the one pass that counts the live rows of every row group. */
const LIVE_BIN = 16_384;

export interface RowGroupPrint {
  print: string;
  /** The months (`YYYY-MM`) its date zonemap spans, when the table has a date column. */
  first?: string;
  last?: string;
  /** Its date column has nulls: it may hold rows of the null-date partition. */
  nullDates?: boolean;
}

/** The block checksums of a warehouse file, read as the prints ask for them. */
export class StorageReader {
  private readonly sums = new Map<number, string>();
  private constructor(
    private readonly fd: number,
    private readonly blockSize: number,
  ) {}

  /** Undefined when the file is not one whose blocks this reader can locate (then nothing is reused). */
  static open(path: string): StorageReader | undefined {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return undefined;
    }
    const head = Buffer.alloc(BLOCKS_START);
    const ok = readSync(fd, head, 0, BLOCKS_START, 0) === BLOCKS_START;
    // the main header: checksum, "DUCK", version, four flag words (an encrypted file has one set)
    const flags = ok ? [0, 1, 2, 3].map((i) => head.readBigUInt64LE(20 + 8 * i)) : [];
    if (!ok || head.toString('latin1', 8, 12) !== 'DUCK' || head.readBigUInt64LE(12) !== STORAGE_VERSION) {
      closeSync(fd);
      return undefined;
    }
    if (flags.some((f) => f !== 0n)) {
      closeSync(fd);
      return undefined;
    }
    // the database header with the higher iteration is the live one: its block size
    const [a, b] = [HEADER_SIZE, 2 * HEADER_SIZE].map((at) => ({
      iteration: head.readBigUInt64LE(at + 8),
      blockSize: Number(head.readBigUInt64LE(at + 40)),
    })) as [{ iteration: bigint; blockSize: number }, { iteration: bigint; blockSize: number }];
    const live = a.iteration >= b.iteration ? a : b;
    if (!Number.isInteger(live.blockSize) || live.blockSize < 4096 || live.blockSize > 1 << 30) {
      closeSync(fd);
      return undefined;
    }
    return new StorageReader(fd, live.blockSize);
  }

  close(): void {
    closeSync(this.fd);
  }

  /** The checksum DuckDB wrote at the head of block `id`. */
  private checksum(id: number): string {
    let sum = this.sums.get(id);
    if (sum === undefined) {
      const buf = Buffer.alloc(8);
      const read = readSync(this.fd, buf, 0, 8, BLOCKS_START + id * this.blockSize);
      sum = read === 8 ? buf.toString('hex') : 'missing';
      this.sums.set(id, sum);
    }
    return sum;
  }

  /**
   * The prints of the table's row groups, in order; undefined when its storage proves nothing (see the module's
   * comment). `dateColumn`: the column whose zonemap bounds each row group's months.
   */
  async prints(
    session: Session,
    table: { schema: string; name: string },
    dateColumn?: string,
  ): Promise<RowGroupPrint[] | undefined> {
    try {
      return await this.read(session, table, dateColumn);
    } catch {
      // what DuckDB does not list (a relation that is not a table) proves nothing: the rows are hashed
      return undefined;
    }
  }

  private async read(
    session: Session,
    table: { schema: string; name: string },
    dateColumn?: string,
  ): Promise<RowGroupPrint[] | undefined> {
    const segments = await session.all<Segment>(
      `select row_group_id::BIGINT as rg, column_name, column_path, segment_id::BIGINT as segment_id, segment_type,
              count::BIGINT as count, compression, stats, has_updates, persistent, block_id::BIGINT as block_id,
              block_offset::BIGINT as block_offset, segment_info,
              CAST(additional_block_ids AS VARCHAR) as additional
         from pragma_storage_info(${quoteLiteral(qualified(table))})
        order by rg, column_id, column_path, segment_id`,
    );
    if (segments.some((s) => !s.persistent || s.has_updates)) return undefined;
    const groups = groupBy(segments, (s) => Number(s.rg));
    const out: RowGroupPrint[] = [];
    const order = [...groups.keys()].sort((x, y) => x - y);
    // the row groups' rows, which place their row ids (and so their live rows): every column's top-level segments
    // must count the same, or the layout is not the one this reader knows
    const spans: { rg: number; start: number; rows: number }[] = [];
    let start = 0;
    for (const rg of order) {
      const rows = topLevelRows(groups.get(rg) as Segment[]);
      if (rows === undefined) return undefined;
      spans.push({ rg, start, rows });
      start += rows;
    }
    const live = await liveRows(session, qualified(table), spans, start);
    for (const { rg, rows } of spans) {
      const list = groups.get(rg) as Segment[];
      // Not the row group's place in the table: a checkpoint that merges row groups before it (DuckDB vacuums
      // partly filled ones) moves its row ids but not its rows.
      const hash = createHash('sha256').update(`${rows}|${live.get(rg)}`);
      for (const s of list) {
        const blocks = [s.block_id, ...parseIds(s.additional)].filter((id): id is number => id !== null && id >= 0);
        hash.update(
          [
            s.column_name,
            s.column_path,
            s.segment_id,
            s.segment_type,
            s.count,
            s.compression,
            s.stats,
            s.segment_info,
            s.block_offset,
            blocks.map((id) => `${id}:${this.checksum(Number(id))}`).join(','),
          ].join('|'),
        );
        hash.update('\n');
      }
      const print: RowGroupPrint = { print: hash.digest('hex').slice(0, 32) };
      if (dateColumn !== undefined) {
        const range = monthRange(list.filter((s) => s.column_name === dateColumn));
        if (range === undefined) return undefined;
        Object.assign(print, range);
      }
      out.push(print);
    }
    return out;
  }
}

/**
 * Each row group's live rows, as `count:sum of their offsets in the row group` (what a DELETE changes; the segments
 * stay as they were). Counted per bin of row ids in one pass; a bin that straddles two row groups and lost rows is
 * counted again exactly, each side on its own.
 */
async function liveRows(
  session: Session,
  table: string,
  spans: { rg: number; start: number; rows: number }[],
  total: number,
): Promise<Map<number, string>> {
  const bins = new Map<number, { n: number; sum: bigint }>();
  for (const row of await session.all<{ b: number | bigint; n: number | bigint; s: string }>(
    `select (rowid // ${LIVE_BIN})::BIGINT as b, count(*)::BIGINT as n, CAST(sum(rowid) AS VARCHAR) as s
       from ${table} group by b`,
  )) {
    bins.set(Number(row.b), { n: Number(row.n), sum: BigInt(row.s) });
  }
  const out = new Map<number, string>();
  for (const { rg, start, rows } of spans) {
    const end = start + rows;
    let n = 0;
    let sum = 0n;
    let exact = false;
    for (let bin = Math.floor(start / LIVE_BIN); bin * LIVE_BIN < end; bin++) {
      const lo = bin * LIVE_BIN;
      const hi = Math.min(lo + LIVE_BIN, total);
      const got = bins.get(bin) ?? { n: 0, sum: 0n };
      if (lo >= start && hi <= end) {
        n += got.n;
        sum += got.sum - BigInt(got.n) * BigInt(start);
      } else if (got.n === hi - lo) {
        // a whole bin: the row ids it shares with the row group are all live
        const a = Math.max(lo, start);
        const b = Math.min(hi, end);
        n += b - a;
        sum += (BigInt(a + b - 1) * BigInt(b - a)) / 2n - BigInt(b - a) * BigInt(start);
      } else {
        exact = true;
        break;
      }
    }
    if (exact) {
      const row = await session.all<{ n: number | bigint; s: string | null }>(
        `select count(*)::BIGINT as n, CAST(sum(rowid - ${start}) AS VARCHAR) as s
           from ${table} where rowid >= ${start} and rowid < ${end}`,
      );
      n = Number(row[0]?.n ?? 0);
      sum = BigInt(row[0]?.s ?? 0);
    }
    out.set(rg, `${n}:${sum}`);
  }
  return out;
}

interface Segment {
  rg: number;
  column_name: string;
  column_path: string;
  segment_id: number;
  segment_type: string;
  count: number;
  compression: string;
  stats: string;
  has_updates: boolean;
  persistent: boolean;
  block_id: number | null;
  block_offset: number | null;
  segment_info: string;
  additional: string | null;
}

/** The rows every column's top-level (`[n]`) segments of a row group count, when they all count the same. */
function topLevelRows(segments: Segment[]): number | undefined {
  const counts = new Map<string, number>();
  for (const s of segments) {
    if (!/^\[\d+\]$/.test(s.column_path)) continue;
    counts.set(s.column_path, (counts.get(s.column_path) ?? 0) + Number(s.count));
  }
  const distinct = new Set(counts.values());
  return distinct.size === 1 ? (distinct.values().next().value as number) : undefined;
}

function parseIds(text: string | null): number[] {
  return text ? [...text.matchAll(/-?\d+/g)].map((m) => Number(m[0])) : [];
}

/**
 * The months a row group's date segments span, from their zonemaps; undefined when they do not bound them (a
 * date past the calendar's years, infinity). A row group of null dates only spans no month.
 */
function monthRange(segments: Segment[]): Pick<RowGroupPrint, 'first' | 'last' | 'nullDates'> | undefined {
  let first: string | undefined;
  let last: string | undefined;
  let nullDates = false;
  for (const s of segments) {
    if (/Has Null: true/.test(s.stats)) nullDates = true;
    if (s.segment_type === 'VALIDITY') continue;
    const m = /\[Min: (\d{4})-(\d{2})-\d{2}, Max: (\d{4})-(\d{2})-\d{2}\]/.exec(s.stats);
    if (!m) {
      // no zonemap: only a segment of nulls may lack one
      if (/Has No Null: false/.test(s.stats) && !/Min:/.test(s.stats)) continue;
      return undefined;
    }
    const lo = `${m[1]}-${m[2]}`;
    const hi = `${m[3]}-${m[4]}`;
    if (first === undefined || lo < first) first = lo;
    if (last === undefined || hi > last) last = hi;
  }
  const out: Pick<RowGroupPrint, 'first' | 'last' | 'nullDates'> = {};
  if (first !== undefined) out.first = first;
  if (last !== undefined) out.last = last;
  if (nullDates) out.nullDates = true;
  return out;
}

/** `YYYY-MM` months from `first` to `last`, both included. */
export function monthsBetween(first: string, last: string): string[] {
  const out: string[] = [];
  let [y, m] = first.split('-').map(Number) as [number, number];
  const [ly, lm] = last.split('-').map(Number) as [number, number];
  while (y < ly || (y === ly && m <= lm)) {
    out.push(`${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}`);
    m += 1;
    if (m > 12) {
      m = 1;
      y += 1;
    }
  }
  return out;
}
