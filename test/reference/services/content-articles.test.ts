/** Content service, articles over HTTP: list (publication_status, page, page_size), get, patch, delete. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContentError, expectServed, type Harness, startHarness } from './support.js';

describe('content articles', () => {
  let h: Harness;
  const ids: string[] = [];
  beforeAll(async () => {
    h = await startHarness({ demo: false, backgroundDelayMs: 7_000 });
    for (let i = 0; i < 3; i++) {
      await h.call('POST', '/api/v1/tasks', { user_prompt: `Article number ${i}`, min_words: 100, max_words: 200 });
    }
    await h.advance(7);
    const list = (await h.call('GET', '/api/v1/articles')).body;
    ids.push(...list.articles.map((a: { article_id: string }) => a.article_id));
  });
  afterAll(() => h.close());

  it('lists every article with page, page_size and total', async () => {
    expect(ids).toHaveLength(3);
    const first = expectServed('listArticles', await h.call('GET', '/api/v1/articles?page=1&page_size=2'));
    expect(first).toMatchObject({ page: 1, page_size: 2, total: 3 });
    expect(first.articles).toHaveLength(2);
    const second = (await h.call('GET', '/api/v1/articles?page=2&page_size=2')).body;
    expect(second.articles).toHaveLength(1);
    const seen = [...first.articles, ...second.articles].map((a: { article_id: string }) => a.article_id);
    expect(new Set(seen).size).toBe(3);
    for (const q of ['page=0', 'page_size=0', 'page_size=101', 'publication_status=live']) {
      expectContentError(await h.call('GET', `/api/v1/articles?${q}`), 400, 'VALIDATION_ERROR');
    }
  });

  it('patches updatable fields, adding one to version; published records the publication time', async () => {
    const id = ids[0];
    const before = expectServed('getArticle', await h.call('GET', `/api/v1/articles/${id}`));
    const edited = expectServed(
      'updateArticle',
      await h.call('PATCH', `/api/v1/articles/${id}`, {
        title: 'A better title',
        seo_title: 'Better',
        keywords: ['one', 'two'],
        slug: 'better-title',
      }),
    );
    expect(edited).toMatchObject({
      title: 'A better title',
      seo_title: 'Better',
      keywords: ['one', 'two'],
      slug: 'better-title',
    });
    expect(edited.version).toBe(before.version + 1);
    expect(edited.content).toBe(before.content);
    expect(edited.published_at).toBeNull();

    await h.advance(60);
    const published = expectServed(
      'updateArticle',
      await h.call('PATCH', `/api/v1/articles/${id}`, { publication_status: 'published' }),
    );
    expect(published.publication_status).toBe('published');
    expect(published.published_at).toBe(published.updated_at);
    expect(Date.parse(published.published_at)).toBeGreaterThan(Date.parse(edited.updated_at));
    expect(published.version).toBe(before.version + 2);

    const filtered = (await h.call('GET', '/api/v1/articles?publication_status=published')).body;
    expect(filtered.articles.map((a: { article_id: string }) => a.article_id)).toEqual([id]);
    expect((await h.call('GET', '/api/v1/articles?publication_status=draft')).body.total).toBe(2);

    const archived = (await h.call('PATCH', `/api/v1/articles/${id}`, { publication_status: 'archived' })).body;
    expect(archived.published_at).toBe(published.published_at);
    const draft = (await h.call('PATCH', `/api/v1/articles/${id}`, { publication_status: 'draft' })).body;
    expect(draft.published_at).toBeNull();
  });

  it('patches content and seo_description, and keeps slugs unique', async () => {
    const [a, b] = [ids[1], ids[0]];
    const content = '# Rewritten\n\nShorter text written by an editor.\n';
    const edited = expectServed(
      'updateArticle',
      await h.call('PATCH', `/api/v1/articles/${a}`, { content, seo_description: 'An edited description' }),
    );
    expect(edited).toMatchObject({ content, seo_description: 'An edited description', publication_status: 'draft' });
    expect((await h.call('GET', `/api/v1/articles/${a}`)).body.content).toBe(content);
    // A slug another article holds gets a suffix; the article's own slug is kept as it is.
    const taken = (await h.call('GET', `/api/v1/articles/${b}`)).body.slug;
    const renamed = (await h.call('PATCH', `/api/v1/articles/${a}`, { slug: taken })).body;
    expect(renamed.slug).toBe(`${taken}-2`);
    expect((await h.call('PATCH', `/api/v1/articles/${a}`, { slug: renamed.slug })).body.slug).toBe(renamed.slug);
  });

  it('rejects an empty or unknown patch, and unknown articles', async () => {
    const id = ids[1];
    expectContentError(await h.call('PATCH', `/api/v1/articles/${id}`, {}), 400, 'VALIDATION_ERROR');
    expectContentError(await h.call('PATCH', `/api/v1/articles/${id}`, { version: 9 }), 400, 'VALIDATION_ERROR');
    expectContentError(
      await h.call('PATCH', `/api/v1/articles/${id}`, { publication_status: 'live' }),
      400,
      'VALIDATION_ERROR',
    );
    const unknown = '22222222-2222-4222-8222-222222222222';
    expectContentError(await h.call('GET', `/api/v1/articles/${unknown}`), 404, 'ARTICLE_NOT_FOUND');
    expectContentError(await h.call('PATCH', `/api/v1/articles/${unknown}`, { title: 'x' }), 404, 'ARTICLE_NOT_FOUND');
    expectContentError(await h.call('DELETE', `/api/v1/articles/${unknown}`), 404, 'ARTICLE_NOT_FOUND');
    expectContentError(await h.call('GET', '/api/v1/articles/zzz'), 404, 'ARTICLE_NOT_FOUND');
  });

  it('deletes an article permanently', async () => {
    const id = ids[2];
    const deleted = expectServed('deleteArticle', await h.call('DELETE', `/api/v1/articles/${id}`));
    expect(deleted).toEqual({ article_id: id, deleted: true });
    expectContentError(await h.call('GET', `/api/v1/articles/${id}`), 404, 'ARTICLE_NOT_FOUND');
    expectContentError(await h.call('DELETE', `/api/v1/articles/${id}`), 404, 'ARTICLE_NOT_FOUND');
    expect((await h.call('GET', '/api/v1/articles')).body.total).toBe(2);
  });
});
