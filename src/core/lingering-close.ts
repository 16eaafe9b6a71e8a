/**
 * Closing a connection whose request body is refused (a 413) without losing the answer. Node's server closes a
 * `Connection: close` answer's socket with destroySoon() once the answer is written; with the body still arriving,
 * the kernel then resets the connection and a client still writing its body loses the answer to `EPIPE` /
 * `ECONNRESET`. Here the answer and a FIN go out, and the socket closes only after the rest of the body has been read
 * and dropped, LINGER_BYTES have come or LINGER_MS have passed (nginx's lingering close). Written by hand: Node's
 * http server has no lingering close of its own, and the reference server and `vwh events listen` both need it.
 */
import type { IncomingMessage } from 'node:http';

/** What is read and dropped of a refused body before its connection closes: a 5 MB upload is read to its end. */
export const LINGER_BYTES = 8 * 1024 * 1024;
export const LINGER_MS = 5_000;

/**
 * Holds `incoming`'s socket open after the answer until its body is read. `drop` reads the rest of the body, telling
 * `onBytes` each chunk's size until it answers false; by default straight from the request.
 */
export function closeAfterTheBody(
  incoming: IncomingMessage,
  drop: (onBytes: (bytes: number) => boolean) => void = (onBytes) => dropFromRequest(incoming, onBytes),
): void {
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
  if (incoming.complete) stop();
  incoming.once('end', stop);
  incoming.once('error', stop);
  drop((bytes) => {
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

/** Reads the request to its end without keeping it, telling `onBytes` each chunk's size until it answers false. */
export function dropFromRequest(incoming: IncomingMessage, onBytes: (bytes: number) => boolean): void {
  incoming.removeAllListeners('data');
  incoming.on('data', (chunk: Buffer) => {
    if (!onBytes(chunk.length)) incoming.removeAllListeners('data');
  });
  incoming.resume();
}
