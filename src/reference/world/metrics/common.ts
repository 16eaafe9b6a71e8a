/** Helpers shared by the aggregates: rounding, means, brand icons, periods. */

import { dayFromNumber } from '../../../core/days.js';
import { iconUrls } from '../catalog.js';
import type { DayContext, TrackedBrand } from '../context.js';
import { domainOf } from '../names.js';
import type { WorldQuery } from '../types.js';

/** Served floats are rounded to 2 decimals (the analyst's recomputation rounds the same way). */
export function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/** A running sum and count. */
export class Mean {
  sum = 0;
  n = 0;
  add(x: number): void {
    this.sum += x;
    this.n++;
  }
  value(): number | null {
    return this.n === 0 ? null : this.sum / this.n;
  }
}

/** `mentioned / answers x 100`, or null without answers. */
export function percent(part: number, whole: number): number | null {
  return whole === 0 ? null : (part / whole) * 100;
}

export function brandIcons(domain: string | null): { icon_url: string | null; icon_urls: string[] } {
  if (!domain) return { icon_url: null, icon_urls: [] };
  const urls = iconUrls(domain);
  return { icon_url: urls[0] ?? null, icon_urls: urls };
}

export function brandInfo(
  name: string,
  domain: string | null,
): { name: string; icon_url: string | null; icon_urls: string[] } {
  return { name, ...brandIcons(domain) };
}

export function trackedInfo(t: TrackedBrand) {
  return brandInfo(t.name, t.domain ?? domainOf(t.website));
}

/** BrandInfo of a market brand of a context. */
export function marketInfo(ctx: DayContext, idx: number) {
  const m = ctx.market[idx];
  return brandInfo(m?.name ?? 'unknown', m?.domain ?? null);
}

export function period(query: WorldQuery): string {
  return `${query.range.from} to ${query.range.to}`;
}

export function isoDay(day: number): string {
  return dayFromNumber(day);
}

export function faviconUrls(domain: string): { favicon_url: string | null; favicon_urls: string[] } {
  const urls = iconUrls(domain);
  return { favicon_url: urls[0] ?? null, favicon_urls: urls };
}

export function paginate<T>(items: readonly T[], page: number, pageSize: number) {
  const p = Math.max(1, Math.floor(page));
  const size = Math.max(1, Math.floor(pageSize));
  return { page: p, page_size: size, total: items.length, items: items.slice((p - 1) * size, p * size) };
}

/** The value at `key`, created by `make` and stored when absent. */
export function getOrInsert<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}
