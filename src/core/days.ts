/**
 * UTC calendar days: `YYYY-MM-DD` strings, day numbers (whole days since 1970-01-01) and the arithmetic on them.
 * The one home of day arithmetic: the API's date ranges, the reference world and its clock, the sync state and the
 * models all use these.
 */

export const DAY_MS = 86_400_000;

const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** Midnight UTC of `day`, in ms since the epoch (NaN when `day` is not a date). */
export function dayToMs(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

/** The UTC day of the instant `ms`. */
export function msToDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** True for a calendar day written `YYYY-MM-DD` that exists (`2026-02-30` does not). */
export function isCalendarDay(text: string): boolean {
  if (!DAY_PATTERN.test(text)) return false;
  const ms = dayToMs(text);
  return !Number.isNaN(ms) && msToDay(ms) === text;
}

/** `addDays('2025-03-01', -1)` is `2025-02-28`. */
export function addDays(day: string, n: number): string {
  return msToDay(dayToMs(day) + n * DAY_MS);
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function dayDiff(from: string, to: string): number {
  return Math.round((dayToMs(to) - dayToMs(from)) / DAY_MS);
}

/** Every day from `from` to `to`, both included, oldest first (empty when `from` is after `to`). */
export function eachDay(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
}

/** Whole days since 1970-01-01 of `day`. */
export function dayNumber(day: string): number {
  return Math.floor(dayToMs(day) / DAY_MS);
}

const DAY_PARTS = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * `dayNumber` of a text that may not be a day: a `YYYY-MM-DD` calendar day as days since 1970-01-01 (proleptic
 * Gregorian, what DuckDB's DATE holds); undefined for any other text or a day that does not exist (2025-02-30).
 */
export function parseDayNumber(text: string): number | undefined {
  const m = DAY_PARTS.exec(text);
  if (!m) return undefined;
  const y = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const length = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  if (month < 1 || month > 12 || day < 1 || day > length) return undefined;
  // Days from civil (H. Hinnant): the year starts in March, so the leap day is the year's last.
  const yy = month <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

export function dayFromNumber(n: number): string {
  return msToDay(n * DAY_MS);
}

/** The day number containing the instant `ms`. */
export function dayOfInstant(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

export function minDay(a: string, b: string): string {
  return a < b ? a : b;
}

export function maxDay(a: string, b: string): string {
  return a > b ? a : b;
}

/** An inclusive range of days, `from` ≤ `to` when not empty: the one shape of a day range (sync state, model intervals). */
export interface DayRange {
  from: string;
  to: string;
}

/** Sorted, with overlapping or adjacent ranges joined. */
export function mergeRanges(ranges: readonly DayRange[]): DayRange[] {
  const sorted = ranges.filter((r) => r.from <= r.to).sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  const out: DayRange[] = [];
  for (const range of sorted) {
    const last = out[out.length - 1];
    if (last && range.from <= addDays(last.to, 1)) {
      if (range.to > last.to) last.to = range.to;
    } else {
      out.push({ ...range });
    }
  }
  return out;
}

/** The parts of `want` not covered by `have`. */
export function subtractRanges(want: DayRange, have: readonly DayRange[]): DayRange[] {
  if (want.from > want.to) return [];
  let pieces: DayRange[] = [{ ...want }];
  for (const h of mergeRanges(have)) {
    const next: DayRange[] = [];
    for (const p of pieces) {
      if (h.to < p.from || h.from > p.to) {
        next.push(p);
        continue;
      }
      if (h.from > p.from) next.push({ from: p.from, to: addDays(h.from, -1) });
      if (h.to < p.to) next.push({ from: addDays(h.to, 1), to: p.to });
    }
    pieces = next;
  }
  return pieces;
}

/** Splits a range into consecutive chunks of at most `maxDays` days. */
export function chunkRange(range: DayRange, maxDays: number): DayRange[] {
  const out: DayRange[] = [];
  let from = range.from;
  while (from <= range.to) {
    const to = minDay(addDays(from, maxDays - 1), range.to);
    out.push({ from, to });
    from = addDays(to, 1);
  }
  return out;
}
