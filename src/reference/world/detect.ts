/**
 * Brand mention detection on answer text. A term is a brand name or alias with its match type:
 * - `fuzzy`: case-insensitive, and spaces, hyphens and underscores inside the term may be present or absent
 *   ("Northwind Cycles" matches "northwind cycles", "NorthwindCycles", "Northwind-Cycles");
 * - `exact`: case-sensitive, character for character.
 * Both must sit on word boundaries (no ASCII letter or digit right before or after), so "Pulse" is not found in
 * "impulse". Matches never overlap; at one position the longest term wins.
 */
import type { MatchType } from './types.js';

export interface Term {
  text: string;
  match: MatchType;
  /** Who the term belongs to (an index the caller defines). */
  owner: number;
}

export interface Detection {
  owner: number;
  /** Offset of the first match in the text. */
  first: number;
  count: number;
}

const SEPARATORS = /[\s\-_]+/g;

/** The fuzzy key of a string: lowercase, separators removed. */
export function fuzzyKey(text: string): string {
  return text.toLowerCase().replace(SEPARATORS, '');
}

function isSeparator(code: number): boolean {
  // space, tab, newline, CR, form feed, vertical tab, hyphen, underscore, no-break space
  return code === 32 || (code >= 9 && code <= 13) || code === 45 || code === 95 || code === 160;
}

function isWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/** Detections of answer parts kept per detector (one per day context). */
const MEMO_SIZE = 4096;

interface Span {
  start: number;
  end: number;
  owner: number;
}

/**
 * A text reduced to its fuzzy form (lowercase, separators dropped) with, for each kept character, its offset in
 * the original: fuzzy terms are then found with plain indexOf.
 */
function normalize(text: string): { norm: string; map: Int32Array } {
  const map = new Int32Array(text.length);
  const codes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isSeparator(c)) continue;
    map[codes.length] = i;
    codes.push(c >= 65 && c <= 90 ? c + 32 : c < 128 ? c : text.charAt(i).toLowerCase().charCodeAt(0));
  }
  return { norm: String.fromCharCode(...codes), map };
}

export class Detector {
  /**
   * True when some term contains a dot. Every part of an answer ends with a dot and parts are joined by
   * whitespace, so without dotted terms no match can span two parts, and detecting part by part (memoized) finds
   * exactly what detecting the joined text finds.
   */
  readonly spansParts: boolean;
  private readonly memo = new Map<string, Detection[]>();
  private readonly fuzzy: Array<{ key: string; owner: number }> = [];
  private readonly exact: Array<{ text: string; owner: number }> = [];

  constructor(terms: readonly Term[]) {
    const fuzzySeen = new Set<string>();
    const exactSeen = new Set<string>();
    for (const term of terms) {
      const text = term.text.trim();
      if (text.length === 0) continue;
      if (term.match === 'exact') {
        if (!exactSeen.has(text)) {
          exactSeen.add(text);
          this.exact.push({ text, owner: term.owner });
        }
      } else {
        const key = fuzzyKey(text);
        if (key.length > 0 && !fuzzySeen.has(key)) {
          fuzzySeen.add(key);
          this.fuzzy.push({ key, owner: term.owner });
        }
      }
    }
    this.spansParts = terms.some((t) => t.text.includes('.'));
  }

  /**
   * Detection on `parts.join(separator)` (separator: whitespace; each part ends with a dot). Same result as
   * `detect` on the joined text, with `first` offsets relative to the joined text.
   */
  detectParts(parts: readonly string[], separator: string): Detection[] {
    if (this.spansParts) return this.detect(parts.join(separator));
    const byOwner = new Map<number, Detection>();
    let offset = 0;
    for (const part of parts) {
      let found = this.memo.get(part);
      if (!found) {
        if (this.memo.size >= MEMO_SIZE) this.memo.clear();
        found = this.detect(part);
        this.memo.set(part, found);
      }
      for (const d of found) {
        const seen = byOwner.get(d.owner);
        if (seen) seen.count += d.count;
        else byOwner.set(d.owner, { owner: d.owner, first: offset + d.first, count: d.count });
      }
      offset += part.length + separator.length;
    }
    return [...byOwner.values()];
  }

  /** Brands found in `text`, ordered by first occurrence. */
  detect(text: string): Detection[] {
    const spans: Span[] = [];
    const bounded = (start: number, end: number) =>
      (start === 0 || !isWordChar(text.charCodeAt(start - 1))) &&
      (end >= text.length || !isWordChar(text.charCodeAt(end)));
    if (this.fuzzy.length > 0) {
      const { norm, map } = normalize(text);
      for (const { key, owner } of this.fuzzy) {
        for (let at = norm.indexOf(key); at >= 0; at = norm.indexOf(key, at + 1)) {
          const start = map[at] ?? 0;
          const end = (map[at + key.length - 1] ?? 0) + 1;
          if (bounded(start, end)) spans.push({ start, end, owner });
        }
      }
    }
    for (const { text: term, owner } of this.exact) {
      for (let at = text.indexOf(term); at >= 0; at = text.indexOf(term, at + 1)) {
        if (bounded(at, at + term.length)) spans.push({ start: at, end: at + term.length, owner });
      }
    }
    spans.sort((a, b) => a.start - b.start || b.end - a.end);
    const byOwner = new Map<number, Detection>();
    let lastEnd = -1;
    for (const span of spans) {
      if (span.start < lastEnd) continue;
      lastEnd = span.end;
      const seen = byOwner.get(span.owner);
      if (seen) seen.count++;
      else byOwner.set(span.owner, { owner: span.owner, first: span.start, count: 1 });
    }
    return [...byOwner.values()];
  }
}
