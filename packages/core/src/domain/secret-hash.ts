import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The stored form of a bearer secret (API key, invite token). A single fast SHA-256 is right here, unlike
 * for passwords: the secrets are ≥190 bits of server-generated randomness, so there is nothing to guess
 * and a slow KDF would only add latency to every request. With a server pepper (HMAC-SHA256), a leaked
 * database alone does not even let an attacker test candidate keys.
 */
export function hashSecret(secret: string, pepper?: string): string {
  if (pepper !== undefined && pepper !== '') return createHmac('sha256', pepper).update(secret, 'utf8').digest('hex');
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

const HEX = /^(?:[0-9a-f]{2})*$/i;

/**
 * Compares two hex digests without leaking through timing where they differ. Lengths are not secret
 * (every digest of one kind has the same length), so unequal lengths return false at once.
 */
export function constantTimeEqualHex(a: string, b: string): boolean {
  if (a.length !== b.length || !HEX.test(a) || !HEX.test(b)) return false;
  return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}
