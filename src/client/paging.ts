/**
 * Paging the two ways the public API pages (spec "Analytics"):
 * - `page-until-empty` (sources): `data` is a flat array and there is no total; ask page 1, 2, ... until a page
 *   comes back empty.
 * - `page-total` (source detail and chats): `data` is, or contains, `{page, page_size, total, items}` objects
 *   (source detail has two: `urls` and `prompts`); ask until every one of them has been read to its `total`.
 * Decisions are taken on `raw` (the unparsed `data`), so a page that drifted from the schema still pages on.
 */
import type { DataOf, EndpointDef } from '../api/endpoint.js';
import type { ApiClient, CallParams, CallResult } from './api-client.js';

export interface Page<T> {
  page: number;
  result: CallResult<T>;
}

export interface PagingOptions {
  /** First page to ask for (default 1). */
  startPage?: number;
  /** Page size to ask for (default: the endpoint's default). */
  pageSize?: number;
  /** Safety stop (default 10 000 pages). */
  maxPages?: number;
}

export type FetchPage<T> = (page: number) => Promise<CallResult<T>>;

/** Pages until one whose raw `data` is an empty array (or not an array at all: then paging cannot go on). */
export async function* pagesUntilEmpty<T>(
  fetchPage: FetchPage<T>,
  options: PagingOptions = {},
): AsyncGenerator<Page<T>> {
  const start = options.startPage ?? 1;
  const last = start + (options.maxPages ?? 10_000) - 1;
  for (let page = start; page <= last; page++) {
    const result = await fetchPage(page);
    if (Array.isArray(result.raw) && result.raw.length === 0) return;
    yield { page, result };
    if (!Array.isArray(result.raw)) return;
  }
}

/** Pages until every `{page, page_size, total, items}` object in the raw `data` is read to its total. */
export async function* pagesByTotal<T>(fetchPage: FetchPage<T>, options: PagingOptions = {}): AsyncGenerator<Page<T>> {
  const start = options.startPage ?? 1;
  const last = start + (options.maxPages ?? 10_000) - 1;
  for (let page = start; page <= last; page++) {
    const result = await fetchPage(page);
    yield { page, result };
    if (!hasMore(result.raw)) return;
  }
}

/** Pages a catalogue endpoint the way its `pagination` says; one page for endpoints that do not page. */
export function paginate<E extends EndpointDef>(
  client: ApiClient,
  endpoint: E,
  params: CallParams<E> = {},
  options: PagingOptions = {},
): AsyncGenerator<Page<DataOf<E>>> {
  const fetchPage: FetchPage<DataOf<E>> = (page) =>
    client.call(endpoint, {
      ...params,
      query: {
        ...(params.query as object | undefined),
        page,
        ...(options.pageSize === undefined ? {} : { page_size: options.pageSize }),
      } as CallParams<E>['query'],
    });
  if (endpoint.pagination === 'page-until-empty') return pagesUntilEmpty(fetchPage, options);
  if (endpoint.pagination === 'page-total') return pagesByTotal(fetchPage, options);
  return (async function* single() {
    yield { page: 1, result: await client.call(endpoint, params) };
  })();
}

/** The paginated objects of a raw `data`: itself, or its direct properties shaped like one. */
export function paginatedParts(
  raw: unknown,
): Array<{ page: number; page_size: number; total: number; items: unknown[] }> {
  const candidates = isPaginated(raw) ? [raw] : raw && typeof raw === 'object' ? Object.values(raw) : [];
  return candidates.filter(isPaginated);
}

function hasMore(raw: unknown): boolean {
  return paginatedParts(raw).some((p) => p.items.length > 0 && p.page * p.page_size < p.total);
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
