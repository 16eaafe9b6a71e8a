/**
 * The nearest known word to a mistyped one (a config field, a command, a report, a path): no schema library, so that
 * a command that loads none (vwh query) can say what a user likely meant.
 */

/** The known field a mistyped one most likely meant: one it starts or ends with, else the closest by edits (at most 3). */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const affix = known
    .filter((k) => k.length >= 2 && (lower.startsWith(k.toLowerCase()) || lower.endsWith(k.toLowerCase())))
    .sort((a, b) => b.length - a.length)[0];
  if (affix) return affix;
  let best: { key: string; d: number } | undefined;
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase());
    if (d <= 3 && (!best || d < best.d)) best = { key: k, d };
  }
  return best?.key;
}

/** Levenshtein distance: the edits from `a` to `b` (a mistyped field, a mistyped path). */
export function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(
        (row[j] ?? 0) + 1,
        (next[j - 1] ?? 0) + 1,
        (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    row = next;
  }
  return row[b.length] ?? 0;
}
