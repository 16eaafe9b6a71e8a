/** Content service, articles: list (publication_status, page, page_size), get, patch (version + 1), delete. */
import type { Hono } from 'hono';
import { ERRORS } from '../../../api/index.js';
import { route } from '../../http/route.js';
import type { ReferenceState } from '../../server/reference-state.js';
import type { ArticleRecord } from '../../services/content/store.js';

export function articleView(a: ArticleRecord) {
  const { seq: _seq, ...view } = a;
  return {
    ...view,
    keywords: [...a.keywords],
    featured_images: [...a.featured_images],
    data_sources: [...a.data_sources],
  };
}

// biome-ignore lint/suspicious/noExplicitAny: mounted on the reference server's root app
export function registerArticleRoutes(app: Hono<any>, state: ReferenceState): void {
  const content = () => state.services.content;
  const opts = { badParams: ERRORS.articleNotFound, guard: () => content().guard() };

  route(
    app,
    state,
    'listArticles',
    ({ query }) => {
      const all = content().allArticles();
      const matching = query.publication_status
        ? all.filter((a) => a.publication_status === query.publication_status)
        : all;
      const start = (query.page - 1) * query.page_size;
      return {
        articles: matching.slice(start, start + query.page_size).map(articleView),
        page: query.page,
        page_size: query.page_size,
        total: matching.length,
      };
    },
    opts,
  );

  route(app, state, 'getArticle', ({ params }) => articleView(content().getArticle(params.article_id)), opts);

  route(
    app,
    state,
    'updateArticle',
    ({ params, body }) => {
      const store = content();
      return articleView(store.update(store.getArticle(params.article_id), body));
    },
    opts,
  );

  route(
    app,
    state,
    'deleteArticle',
    ({ params }) => {
      const store = content();
      const article = store.getArticle(params.article_id);
      store.deleteArticle(article);
      return { article_id: article.article_id, deleted: true };
    },
    opts,
  );
}
