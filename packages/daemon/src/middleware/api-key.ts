import {
  bucketsFor,
  checkKeyFormat,
  constantTimeEqualHex,
  hashApiKey,
  hasScope,
  isAllowed,
  isKeyUsable,
  looksLikeApiKey,
  rateLimitError,
  rateLimitHeaders,
  ServiceError,
  shouldWriteLastUsed,
  slash24,
  type Scope,
} from '@svc/core';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.js';
import type { ApiKeyRecord, User } from '../store/repositories.js';
import { checkRefusedBudget, refusedCredential } from './refused-credentials.js';
import { bearerToken } from './session.js';

/**
 * API-key routes (spec 5.1–5.3, 8.3). The order matters: the format check (checksum, legacy retirement)
 * refuses typos and random strings before any database read (refusals count per client address, and an address
 * that has spent that budget is refused before any check: refused-credentials.ts); the request counters run as soon as the key
 * is known, so every answer after that carries X-RateLimit-* (403s included); scope and IP rejections are
 * one identical 403 so the caller cannot tell which one it was (spec 5.3 rule 3). `required` undefined:
 * any valid key will do.
 */
export function requireApiKey(required?: Scope) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const authorization = c.req.header('authorization');
    const token = bearerToken(authorization);
    if (authorization === undefined || token === undefined) throw new ServiceError('UNAUTHORIZED');
    if (!looksLikeApiKey(token)) {
      throw new ServiceError(
        'UNAUTHORIZED',
        'This route needs an API key (create one with `svc keys create` or POST /keys); session tokens are not accepted here.',
        { credential: 'api_key' },
      );
    }
    const { apiKeys, requestQuota, clock } = c.get('services');
    await checkRefusedBudget(c);
    const now = clock();
    if (checkKeyFormat(token, now) !== 'valid') throw await refusedCredential(c);

    const found = await findKey(c, token);
    if (found === undefined || !isRecordUsable(found.key, now)) throw await refusedCredential(c);
    const { key, owner } = found;

    const plan = bucketsFor({ kind: 'request', authorization, userId: owner.id, tier: owner.tier }, now);
    if (plan.ok) {
      const decision = await requestQuota.consume(plan.buckets, now);
      for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.header(name, value);
      if (!decision.allowed) throw rateLimitError(decision.blocked);
      c.set('rateLimit', decision.tightest);
    }

    if ((required !== undefined && !hasScope(key.scopes, required)) || !isAllowed(key.ipAllowlist, c.get('clientIp'))) {
      throw new ServiceError('FORBIDDEN');
    }

    if (shouldWriteLastUsed(key.lastUsedAt === null ? null : new Date(key.lastUsedAt), now)) await apiKeys.touchLastUsed(key.id, now);
    await noticeNewLocation(c, key, owner, now);
    c.set('apiKey', key);
    c.set('user', owner);
    await next();
  });
}

/** Core's isKeyUsable on a stored key (revoked or past its expiry: unusable). */
export function isRecordUsable(key: ApiKeyRecord, now: Date): boolean {
  return isKeyUsable({ expiresAt: new Date(key.expiresAt), revokedAt: key.revokedAt === null ? null : new Date(key.revokedAt) }, now);
}

/** The key of this token and its owner; undefined for an unknown key (or a key whose owner is gone). */
async function findKey(c: Context<AppEnv>, token: string): Promise<{ key: ApiKeyRecord; owner: User } | undefined> {
  // Keys carry ~190 random bits, so a plain SHA-256 is a safe lookup value and survives a change of the JWT secret.
  const hash = hashApiKey(token);
  const found = await c.get('services').apiKeys.findByHashWithOwner(hash);
  return found !== undefined && constantTimeEqualHex(found.key.hash, hash) ? found : undefined;
}

/** Spec 5.1 rule 8: one mail per key and /24 (IPv6: /64), the first time the key is used from it. */
async function noticeNewLocation(c: Context<AppEnv>, key: ApiKeyRecord, owner: User, now: Date): Promise<void> {
  const ip = c.get('clientIp');
  const network = slash24(ip);
  if (network === undefined) return;
  const { apiKeys, mail } = c.get('services');
  if (!(await apiKeys.markNetworkSeen({ keyId: key.id, network, now }))) return;
  // Recorded even when the mail is off, so turning it back on does not report networks seen meanwhile.
  if (!owner.notifications.newLocation) return;
  await mail.send({
    to: owner.email,
    subject: `svc: API key "${key.label}" used from a new location (${ip})`,
    text:
      `Your svc API key "${key.label}" (${key.prefix}…${key.last4}) was used from ${ip} (network ${network}) ` +
      `at ${now.toISOString()}, the first time from that network.\n\n` +
      `If this was not you, revoke the key with \`svc keys revoke ${key.id}\` or DELETE /keys/${key.id}.\n`,
  });
}
