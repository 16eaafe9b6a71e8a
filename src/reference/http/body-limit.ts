/**
 * Request bodies are capped before they are read whole: a declared Content-Length over the cap is refused at once,
 * a chunked body as soon as it passes the cap (a 100 MB body once grew the server from 103 to 424 MB before its
 * 400). The cap stands for a gateway in front of every service, so its 413 has the server's `{detail}` shape on
 * /api/v1 and /api/v2 too.
 *
 * The answer says `Connection: close`, and the connection closes only after it is sent and the rest of the body has
 * been read and dropped (core/lingering-close.ts): closing with the body still arriving makes the kernel reset the
 * connection, and a client still writing its body then loses the 413 to `EPIPE` / `ECONNRESET`.
 */
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { bodyTooLargeDetail, ERRORS, errorBody, MAX_BODY_BYTES } from '../../api/index.js';
import { closeAfterTheBody, dropFromRequest } from '../../core/lingering-close.js';

export { MAX_BODY_BYTES };

export function boundedBodies(maxBytes = MAX_BODY_BYTES): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: (c) => {
      c.header('Connection', 'close');
      const incoming = nodeRequest(c);
      if (incoming) closeAfterTheBody(incoming, (onBytes) => dropTheRest(c, incoming, onBytes));
      return c.json(errorBody(ERRORS.bodyTooLarge, bodyTooLargeDetail(maxBytes)) as object, 413);
    },
  });
  // GET and HEAD carry no body here: skip them before `c.req.raw` builds a full Request for every read.
  return (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limit(c, next));
}

/** The Node request under the app when served by @hono/node-server (none when the app is called in process). */
function nodeRequest(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

/**
 * Reads the request to its end, telling `onBytes` each chunk's size until it answers false. Through the app's body
 * stream when nothing has read it yet (it pauses the request once its queue is full and nobody reads it), else (a
 * chunked body the cap stopped reading) through the request itself, without the stream's listener.
 */
function dropTheRest(c: Context, incoming: IncomingMessage, onBytes: (bytes: number) => boolean): void {
  const body = c.req.raw.body;
  if (body && !body.locked) {
    const reader = body.getReader();
    const next = (): Promise<void> =>
      reader.read().then(({ done, value }) => (done || !onBytes(value.length) ? undefined : next()));
    next().catch(() => undefined);
    return;
  }
  dropFromRequest(incoming, onBytes);
}
