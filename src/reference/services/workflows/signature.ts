/** `X-Webhook-Signature`: hex HMAC-SHA256 of the exact raw body with the webhook's secret (spec, Delivery rules 1). */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-webhook-signature';
export const DELIVERY_ID_HEADER = 'x-webhook-delivery-id';

export function sign(secret: string, rawBody: string | Uint8Array): string {
  return createHmac('sha256', secret).update(rawBody).digest('hex');
}

/**
 * True when `header` is the signature of `rawBody`: compared in constant time on the decoded bytes, before the
 * body is parsed. A missing header, a header that is not 64 hex digits, or any other value is false.
 */
export function verifySignature(
  secret: string,
  rawBody: string | Uint8Array,
  header: string | null | undefined,
): boolean {
  if (typeof header !== 'string' || !/^[0-9a-fA-F]{64}$/.test(header.trim())) return false;
  const expected = Buffer.from(sign(secret, rawBody), 'hex');
  const given = Buffer.from(header.trim(), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
