/**
 * A bounded cache that keeps recently used entries: two generations of at most capacity/2 entries each. New and
 * re-used entries go to the young generation; when it is full it becomes the old one and the previous old one is
 * dropped. Cheaper than a strict LRU (no reordering on every hit), never holds more than `capacity` entries.
 */
export class Lru<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private readonly half: number;

  constructor(readonly capacity: number) {
    this.half = Math.max(1, Math.floor(capacity / 2));
  }

  get size(): number {
    return this.young.size + this.old.size;
  }

  get(key: K): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const aged = this.old.get(key);
    if (aged !== undefined) {
      this.old.delete(key);
      this.put(key, aged);
    }
    return aged;
  }

  set(key: K, value: V): void {
    if (this.capacity <= 0) return;
    this.old.delete(key);
    this.put(key, value);
  }

  clear(): void {
    this.young.clear();
    this.old.clear();
  }

  private put(key: K, value: V): void {
    if (this.young.size >= this.half && !this.young.has(key)) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }
}
