/**
 * Request bodies are capped before they are read whole: a declared Content-Length over the cap is refused at once,
 * a chunked body as soon as it passes the cap (a 100 MB body once grew the server from 103 to 424 MB before its
 * 400). The cap stands for a gateway in front of every service, so its 413 has the server's `{detail}` shape on
 * /api/v1 and /api/v2 too.
 *
 * The answer says `Connection: close`, and the connection closes only after it is sent and the rest of the body has
 * been read and dropped (up to LINGER_BYTES or LINGER_MS, nginx's lingering close): closing with the body still
 * arriving makes the kernel reset the connection, and a client still writing its body then loses the 413 to
 * `EPIPE` / `ECONNRESET`.
 */
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { bodyTooLargeDetail, ERRORS, errorBody, MAX_BODY_BYTES } from '../../api/index.js';

export { MAX_BODY_BYTES };

/** What is read and dropped of a refused body before its connection closes: a 5 MB upload is read to its end. */
export const LINGER_BYTES = 8 * 1024 * 1024;
export const LINGER_MS = 5_000;

export function boundedBodies(maxBytes = MAX_BODY_BYTES): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: (c) => {
      c.header('Connection', 'close');
      const incoming = nodeRequest(c);
      if (incoming) closeAfterTheBody(c, incoming);
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
 * Reads and drops the rest of a refused body, and holds the socket open until it is read: Node's server closes a
 * `Connection: close` answer's socket with destroySoon() once the answer is written, which here only half-closes (the
 * answer and a FIN go out) until the body has ended, LINGER_BYTES have come or LINGER_MS have passed.
 */
function closeAfterTheBody(c: Context, incoming: IncomingMessage): void {
  const socket = incoming.socket;
  const destroySoon = socket.destroySoon.bind(socket);
  let answered = false;
  let drained = false;
  let left = LINGER_BYTES;
  const stop = () => {
    if (drained) return;
    drained = true;
    clearTimeout(timer);
    if (answered) destroySoon();
  };
  const timer = setTimeout(stop, LINGER_MS);
  timer.unref();
  incoming.once('end', stop);
  incoming.once('error', stop);
  dropTheRest(c, incoming, (bytes) => {
    left -= bytes;
    if (left < 0) stop();
    return !drained;
  });
  socket.destroySoon = () => {
    answered = true;
    if (drained) destroySoon();
    else socket.end();
  };
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
  incoming.removeAllListeners('data');
  incoming.on('data', (chunk: Buffer) => {
    if (!onBytes(chunk.length)) incoming.removeAllListeners('data');
  });
  incoming.resume();
}
