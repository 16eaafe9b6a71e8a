/**
 * Paging by an endpoint's declared `pagination` (its catalogue entry says which of the API's ways it pages):
 * - `page-until-empty` (sources): `page`/`page_size`, no total; a page shorter than asked is the last one (an empty
 *   page, the spec's rule, is one of those).
 * - `page-total` (source detail and chats, articles): `page`/`page_size` and a `total` in the body: either in each
 *   `{page, page_size, total, items}` part of the data (itself, as source chats; or its direct properties, as
 *   source detail's `urls` and `prompts`), read until every part reaches its total, or beside the list (articles),
 *   read until a short page or the total.
 * - `offset-limit` (content tasks): `offset`/`limit` and a `total` beside the list, read the same way.
 * - `none`: one request.
 * A page that drifted from its schema pages on when the items kept from it filled the page; with nothing kept,
 * nothing tells what follows and paging stops.
 */
import type { Pagination } from '../api/endpoint.js';

/** What the pager needs to know of the page it just read. */
export interface PageRead {
  /** 0-based index of the page. */
  index: number;
  /** Page size asked for. */
  size: number;
  /** The parsed `data`, undefined when the page drifted from its schema. */
  data: unknown;
  /** List items the page held: parsed, or (drifted) kept and rejected one by one. */
  count: number;
  /** Items kept (parsed or salvaged); on a drifted page, 0 means nothing could be read. */
  kept: number;
}

/** The paging query of the page with this 0-based index (to add to the request's own query). */
export function pageQuery(pagination: Pagination, index: number, size: number): Record<string, number> {
  if (pagination === 'none') return {};
  if (pagination === 'offset-limit') return { limit: size, offset: index * size };
  return { page: index + 1, page_size: size };
}

/** Whether another page follows the one just read. */
export function hasNextPage(pagination: Pagination, read: PageRead): boolean {
  if (pagination === 'none') return false;
  if (read.data === undefined) return read.kept > 0 && read.count >= read.size;
  if (pagination === 'page-total') {
    const parts = paginatedParts(read.data);
    if (parts.length > 0) return parts.some((p) => p.items.length > 0 && p.page * p.page_size < p.total);
  }
  if (read.count < read.size) return false;
  const total = pagination === 'page-until-empty' ? undefined : totalOf(read.data);
  return total === undefined || (read.index + 1) * read.size < total;
}

/**
 * How many pages the first page says there are (its parts' or its own `total` over the page size), or undefined
 * when it says nothing (`page-until-empty`). A later page asked past it is an API that pages without end.
 */
export function promisedPages(pagination: Pagination, data: unknown, size: number): number | undefined {
  if (pagination === 'none' || pagination === 'page-until-empty') return undefined;
  const parts = paginatedParts(data);
  if (parts.length > 0) return Math.max(...parts.map((p) => Math.ceil(p.total / Math.max(1, p.page_size))));
  const total = totalOf(data);
  return total === undefined ? undefined : Math.ceil(total / Math.max(1, size));
}

/** The paginated objects of a `data`: itself, or its direct properties shaped like one. */
export function paginatedParts(
  data: unknown,
): Array<{ page: number; page_size: number; total: number; items: unknown[] }> {
  const candidates = isPaginated(data) ? [data] : data && typeof data === 'object' ? Object.values(data) : [];
  return candidates.filter(isPaginated);
}

function totalOf(data: unknown): number | undefined {
  const total = data && typeof data === 'object' ? (data as { total?: unknown }).total : undefined;
  return typeof total === 'number' ? total : undefined;
}

function isPaginated(value: unknown): value is { page: number; page_size: number; total: number; items: unknown[] } {
  if (!value || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.page === 'number' &&
    typeof v.page_size === 'number' &&
    typeof v.total === 'number' &&
    Array.isArray(v.items)
  );
}
