/**
 * The bounded cache of answer facts. Facts are grouped in series (one per day context, prompt and provider) held
 * as dense arrays indexed by day, so an answer costs one array slot plus its ~40-byte facts string. Each use
 * stamps its series; when the store exceeds its capacity the least recently used series are dropped until it
 * holds at most 90% of it (eviction in batches keeps the per-answer cost O(1) amortized). The total never exceeds
 * `capacity` answers.
 */

interface Series {
  start: number;
  items: Array<string | undefined>;
  count: number;
  used: number;
}

export class FactsStore {
  private readonly series = new Map<number, Series>();
  private total = 0;
  private tick = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.total;
  }

  get(key: number, day: number): string | undefined {
    const series = this.series.get(key);
    if (!series) return undefined;
    series.used = ++this.tick;
    return series.items[day - series.start];
  }

  set(key: number, day: number, facts: string): void {
    if (this.capacity <= 0) return;
    let series = this.series.get(key);
    if (!series) {
      series = { start: day, items: [], count: 0, used: 0 };
      this.series.set(key, series);
    }
    series.used = ++this.tick;
    if (day < series.start) {
      series.items = [...new Array<undefined>(series.start - day), ...series.items];
      series.start = day;
    }
    if (series.items[day - series.start] !== undefined) return;
    series.items[day - series.start] = facts;
    series.count++;
    this.total++;
    if (this.total > this.capacity) this.evict(key);
  }

  clear(): void {
    this.series.clear();
    this.total = 0;
  }

  /** Drops least recently used series (the one being filled last) until at most 90% of the capacity is used. */
  private evict(current: number): void {
    const target = Math.floor(this.capacity * 0.9);
    const order = [...this.series.entries()].sort((a, b) =>
      a[0] === current ? 1 : b[0] === current ? -1 : a[1].used - b[1].used,
    );
    for (const [key, s] of order) {
      if (this.total <= target) break;
      this.series.delete(key);
      this.total -= s.count;
    }
  }
}
