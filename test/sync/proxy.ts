import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type BodyRewrite = (path: string, body: unknown) => unknown;
/** Sees every request that passes: its path and headers (to check where requests went and what they carried). */
export type RequestSeen = (path: string, headers: Record<string, string | string[] | undefined>) => void;

/**
 * A node:http proxy on port 0 in front of the reference server that rewrites JSON bodies (schema drift the
 * reference itself never serves). Everything else passes through unchanged, headers included.
 */
export async function startRewritingProxy(
  target: string,
  rewrite: BodyRewrite,
  seen?: RequestSeen,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    seen?.(new URL(req.url ?? '/', target).pathname, req.headers);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host') headers[k] = v;
    const upstream = await fetch(target + (req.url ?? '/'), {
      method: req.method ?? 'GET',
      headers,
      ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
    });
    let text = await upstream.text();
    if (upstream.ok && text) text = JSON.stringify(rewrite(new URL(req.url ?? '/', target).pathname, JSON.parse(text)));
    const out: Record<string, string> = {};
    upstream.headers.forEach((v, k) => {
      if (k !== 'content-length' && k !== 'content-encoding' && k !== 'transfer-encoding') out[k] = v;
    });
    res.writeHead(upstream.status, out);
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
