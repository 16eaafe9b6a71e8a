/**
 * The chunk encoder's date parsers: `YYYY-MM-DD` and ISO 8601 texts as DuckDB's DATE (days since 1970-01-01) and
 * TIMESTAMP (microseconds since the epoch) hold them.
 */
import { parseDayNumber } from '../core/days.js';

/** Days since 1970-01-01 of the `YYYY-MM-DD` texts seen, each computed once (a backfill lands a few thousand days). */
const dayNumbers = new Map<string, number>();
const lastDay = { text: '', days: 0 };

/** `parseDayNumber` (undefined for a text that is not a calendar day), cached for the texts a sync lands. */
export function wireDayNumber(text: string): number | undefined {
  // A unit's rows come in day order: most texts are the last one's (no hash of a fresh string).
  if (text === lastDay.text) return lastDay.days;
  let known = dayNumbers.get(text);
  if (known === undefined) {
    known = parseDayNumber(text);
    if (known !== undefined) {
      if (dayNumbers.size >= 100_000) dayNumbers.clear();
      dayNumbers.set(text, known);
    }
  }
  if (known !== undefined) {
    lastDay.text = text;
    lastDay.days = known;
  }
  return known;
}

const ISO_TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?(?:(Z)|([+-])(\d{2})(?::?(\d{2}))?)?$/i;

/**
 * An ISO 8601 timestamp (a bare day, a UTC `Z`, an offset or no zone) as microseconds since the epoch in UTC, what
 * `CAST(CAST(text AS TIMESTAMPTZ) AS TIMESTAMP)` gives in a UTC session (digits past the microsecond dropped);
 * undefined for any other text.
 */
export function timestampMicros(text: string): number | undefined {
  const m = ISO_TIMESTAMP.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '', , sign, oh = '0', om = '0'] = m;
  const month = Number(mo);
  const day = Number(d);
  const ms = Date.UTC(Number(y), month - 1, day, Number(h), Number(mi), Number(sec));
  // Date.UTC rolls 2025-02-30 over to March; DuckDB rejects it.
  const check = new Date(ms);
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined;
  const offset = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000 : 0;
  const fraction = frac ? Number(frac.slice(0, 6).padEnd(6, '0')) : 0;
  return (ms - offset) * 1000 + fraction;
}
