import { describe, expect, it } from 'vitest';
import { hasNextPage, pageQuery, promisedPages } from '../../src/client/paging.js';

const read = (over: Partial<Parameters<typeof hasNextPage>[1]>) => ({
  index: 0,
  size: 10,
  data: [] as unknown,
  count: 0,
  kept: 0,
  ...over,
});

const part = (page: number, total: number, items: number) => ({
  page,
  page_size: 10,
  total,
  items: Array.from({ length: items }, (_, i) => i),
});

describe('paging by the declared pagination', () => {
  it('asks page/page_size, or offset/limit, and nothing for an endpoint that does not page', () => {
    expect(pageQuery('page-until-empty', 2, 100)).toEqual({ page: 3, page_size: 100 });
    expect(pageQuery('page-total', 0, 50)).toEqual({ page: 1, page_size: 50 });
    expect(pageQuery('offset-limit', 2, 100)).toEqual({ limit: 100, offset: 200 });
    expect(pageQuery('none', 3, 100)).toEqual({});
  });

  it('page-until-empty: a full page is followed by another, a short or empty one is the last', () => {
    const full = Array.from({ length: 10 }, (_, i) => i);
    expect(hasNextPage('page-until-empty', read({ data: full, count: 10, kept: 10 }))).toBe(true);
    expect(hasNextPage('page-until-empty', read({ data: full.slice(3), count: 7, kept: 7 }))).toBe(false);
    expect(hasNextPage('page-until-empty', read({ data: [], count: 0 }))).toBe(false);
    // No total: a `total` field in the data does not stop it.
    expect(hasNextPage('page-until-empty', read({ data: { total: 10 }, count: 10, kept: 10 }))).toBe(true);
  });

  it('page-total: every paginated part is read to its total', () => {
    const detail = (page: number) => ({
      stats: {},
      urls: part(page, 25, page < 3 ? 10 : 5),
      prompts: part(page, 4, page === 1 ? 4 : 0),
    });
    expect(hasNextPage('page-total', read({ data: detail(1) }))).toBe(true);
    expect(hasNextPage('page-total', read({ index: 1, data: detail(2) }))).toBe(true);
    expect(hasNextPage('page-total', read({ index: 2, data: detail(3) }))).toBe(false);
    // The data itself paginated (source chats); an empty page stops even below the total.
    expect(hasNextPage('page-total', read({ data: part(1, 11, 10) }))).toBe(true);
    expect(hasNextPage('page-total', read({ index: 1, data: part(2, 40, 0) }))).toBe(false);
  });

  it('page-total and offset-limit with the total beside the list: until the total or a short page', () => {
    const list = (total: number) => ({ articles: [], total });
    expect(hasNextPage('page-total', read({ data: list(25), count: 10, kept: 10 }))).toBe(true);
    expect(hasNextPage('page-total', read({ index: 2, data: list(30), count: 10, kept: 10 }))).toBe(false);
    expect(hasNextPage('offset-limit', read({ index: 1, data: list(30), count: 10, kept: 10 }))).toBe(true);
    expect(hasNextPage('offset-limit', read({ data: list(30), count: 9, kept: 9 }))).toBe(false);
  });

  it('a drifted page pages on when its kept and rejected items filled it, and stops when nothing was kept', () => {
    expect(hasNextPage('page-until-empty', read({ data: undefined, count: 10, kept: 9 }))).toBe(true);
    expect(hasNextPage('offset-limit', read({ data: undefined, count: 10, kept: 0 }))).toBe(false);
    expect(hasNextPage('page-total', read({ data: undefined, count: 6, kept: 6 }))).toBe(false);
  });

  it('an endpoint that does not page is one request', () => {
    expect(hasNextPage('none', read({ data: [1, 2, 3], count: 10, kept: 10 }))).toBe(false);
  });

  it("the pages a first page promises: its parts' or its own total over the page size; none without a total", () => {
    expect(promisedPages('page-total', { urls: part(1, 25, 10), prompts: part(1, 41, 10) }, 10)).toBe(5);
    expect(promisedPages('page-total', { total: 250, items: [] }, 100)).toBe(3);
    expect(promisedPages('offset-limit', { total: 100, tasks: [] }, 100)).toBe(1);
    expect(promisedPages('page-until-empty', [1, 2, 3], 3)).toBeUndefined();
    expect(promisedPages('offset-limit', { tasks: [] }, 100)).toBeUndefined();
  });
});
