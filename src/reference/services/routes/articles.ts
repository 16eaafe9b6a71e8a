/** Content service, articles: list (publication_status, page, page_size), get, patch (version + 1), delete. */
import type { Hono } from 'hono';
import { ERRORS } from '../../../api/index.js';
import type { ArticleRecord, ContentStore } from '../content/store.js';
import { serviceRoute } from '../http/service-route.js';

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
export function registerArticleRoutes(app: Hono<any>, content: () => ContentStore): void {
  const opts = { badParams: ERRORS.articleNotFound, guard: () => content().guard() };

  serviceRoute(
    app,
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

  serviceRoute(app, 'getArticle', ({ params }) => articleView(content().getArticle(params.article_id)), opts);

  serviceRoute(
    app,
    'updateArticle',
    ({ params, body }) => {
      const store = content();
      return articleView(store.update(store.getArticle(params.article_id), body));
    },
    opts,
  );

  serviceRoute(
    app,
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
