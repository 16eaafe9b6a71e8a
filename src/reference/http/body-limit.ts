/**
 * Request bodies are capped before they are read whole: a declared Content-Length over the cap is refused at once,
 * a chunked body as soon as it passes the cap (a 100 MB body once grew the server from 103 to 424 MB before its
 * 400). The answer closes the connection so the rest of the body is never read. The cap stands for a gateway in
 * front of every service, so its 413 has the server's `{detail}` shape on /api/v1 and /api/v2 too.
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { bodyTooLargeDetail, ERRORS, errorBody, MAX_BODY_BYTES } from '../../api/index.js';

export { MAX_BODY_BYTES };

export function boundedBodies(maxBytes = MAX_BODY_BYTES): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: (c) => {
      c.header('Connection', 'close');
      return c.json(errorBody(ERRORS.bodyTooLarge, bodyTooLargeDetail(maxBytes)) as object, 413);
    },
  });
  // GET and HEAD carry no body here: skip them before `c.req.raw` builds a full Request for every read.
  return (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limit(c, next));
}
