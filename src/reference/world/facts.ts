/**
 * The compact facts of one answer, the only thing the world caches: when it was collected, whether it is late,
 * the tracked brands detected (in position order, with count and sentiment), the market brands detected and the
 * references (domain index and page variant). About 30 bytes, kept as a one-byte string (a string of n Latin-1
 * characters costs n bytes plus a 16-byte header, far less than a typed array with its buffer object); the text
 * is regenerated on demand.
 *
 * Layout (bytes): flags, minute hi, minute lo, second, nT, nT x (tracked idx, count, sentiment), nM, nM x market
 * idx, nR, nR x (domain idx, variant).
 */

export interface DecodedFacts {
  late: boolean;
  /** Collection time, ms after the day's 00:00 UTC. */
  offsetMs: number;
  /** Tracked brands in position order (position = index + 1). */
  tracked: Array<{ idx: number; count: number; sentiment: number }>;
  market: number[];
  refs: Array<{ domain: number; variant: number }>;
}

export function encodeFacts(f: DecodedFacts): string {
  const minute = Math.floor(f.offsetMs / 60000);
  const out: number[] = [f.late ? 1 : 0, minute >>> 8, minute & 0xff, Math.floor((f.offsetMs % 60000) / 1000)];
  out.push(f.tracked.length);
  for (const t of f.tracked) out.push(t.idx & 0xff, Math.min(255, t.count), t.sentiment & 0xff);
  out.push(f.market.length);
  for (const m of f.market) out.push(m & 0xff);
  out.push(f.refs.length);
  for (const r of f.refs) out.push(r.domain & 0xff, r.variant & 0xff);
  return String.fromCharCode(...out);
}

export function decodeFacts(b: string): DecodedFacts {
  const at = (i: number) => b.charCodeAt(i) || 0;
  const offsetMs = ((at(1) << 8) | at(2)) * 60000 + at(3) * 1000;
  let i = 4;
  const nT = at(i++);
  const tracked: DecodedFacts['tracked'] = [];
  for (let k = 0; k < nT; k++, i += 3) tracked.push({ idx: at(i), count: at(i + 1), sentiment: at(i + 2) });
  const nM = at(i++);
  const market: number[] = [];
  for (let k = 0; k < nM; k++) market.push(at(i++));
  const nR = at(i++);
  const refs: DecodedFacts['refs'] = [];
  for (let k = 0; k < nR; k++, i += 2) refs.push({ domain: at(i), variant: at(i + 1) });
  return { late: at(0) === 1, offsetMs, tracked, market, refs };
}
