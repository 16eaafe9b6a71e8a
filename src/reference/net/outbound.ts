/**
 * Where the reference may send a request of its own (bootstrap callbacks, workflow webhooks): never to a URL with
 * credentials, never to a private, loopback, link-local, metadata or unspecified address, whether the URL names it
 * or a host name resolves to it. The check runs twice: on the URL as given (at registration and before each
 * attempt) and on every address DNS answers, inside the connection's own lookup, so a name that resolves (or
 * re-resolves) to a refused address is never connected to. Loopback over plain HTTP is allowed only behind the
 * explicit switch (`allowHttpLoopback`, `--allow-http-webhooks`), for local receivers in tests and demos.
 */
import { lookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent } from 'undici';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Not reachable from the public internet, or the cloud metadata service: refused even with the switch on. */
const INTERNAL = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  INTERNAL.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  INTERNAL.addSubnet(net, bits, 'ipv6');
}

/** Why a request to this IP address is refused, or null when it may be sent. */
export function refusedAddress(address: string, allowLoopback: boolean): string | null {
  if (isLoopbackIp(address)) return allowLoopback ? null : `${address} is a loopback address`;
  const ip = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
  if (INTERNAL.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4'))
    return `${address} is a private, link-local, metadata or reserved address`;
  return null;
}

const LOOPBACK_NAMES = new Set(['localhost']);

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

function isLoopbackIp(address: string): boolean {
  const ip = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
  return LOOPBACK.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4');
}

/** Checks a URL as given: the URL to send to (loopback behind the switch goes over plain HTTP), or why not. */
export function outboundTarget(raw: string, allowLoopback: boolean): { url: string } | { refused: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { refused: 'not a URL' };
  }
  if (url.username !== '' || url.password !== '') return { refused: 'URLs with credentials are refused' };
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { refused: 'only http(s) URLs are delivered' };
  const host = hostOf(url);
  const literal = isIP(host) !== 0;
  if (LOOPBACK_NAMES.has(host) || (literal && isLoopbackIp(host))) {
    if (!allowLoopback) return { refused: `${host} is a loopback address` };
    url.protocol = 'http:';
    return { url: url.toString() };
  }
  const why = literal ? refusedAddress(host, false) : null;
  if (why) return { refused: why };
  if (url.protocol !== 'https:') return { refused: 'plain HTTP delivery is refused (HTTPS only)' };
  return { url: url.toString() };
}

export class OutboundRefused extends Error {
  override name = 'OutboundRefused';
}

/** A lookup that fails when any address the name resolves to is refused. */
function guardedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const list = addresses as Array<{ address: string; family: number }>;
      for (const entry of list) {
        const why = refusedAddress(entry.address, allowLoopback);
        if (why) return callback(new OutboundRefused(`${hostname} resolves to ${why}`), '', 4);
      }
      if (options.all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      const first = list[0];
      if (!first) return callback(new OutboundRefused(`${hostname} has no address`), '', 4);
      return callback(null, first.address, first.family);
    });
  };
}

const agents = new Map<boolean, Agent>();

/** The undici dispatcher every outbound request of the reference uses. */
export function outboundDispatcher(allowLoopback: boolean): Agent {
  let agent = agents.get(allowLoopback);
  if (!agent) {
    agent = new Agent({ connect: { lookup: guardedLookup(allowLoopback) } });
    agents.set(allowLoopback, agent);
  }
  return agent;
}

/** The reason an outbound request failed because the guard refused it, or null for any other failure. */
export function refusalOf(error: unknown): string | null {
  for (let e: unknown = error; e instanceof Error; e = e.cause) if (e instanceof OutboundRefused) return e.message;
  return null;
}
