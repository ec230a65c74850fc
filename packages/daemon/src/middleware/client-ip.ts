import { clientIp, slash24, windowKey, windowReset, type BucketRequest, type WindowKind } from '@svc/core';
import { getConnInfo } from '@hono/node-server/conninfo';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.js';

/**
 * Sets `c.get('clientIp')`: the socket peer, or the client named by X-Forwarded-For when the peer is one of
 * SVC_TRUSTED_PROXIES (core's clientIp walks the chain). IP allowlists, anonymous quotas and the logs use it.
 */
export const resolveClientIp = createMiddleware<AppEnv>(async (c, next) => {
  let peer: string | undefined;
  try {
    peer = getConnInfo(c).remote.address;
  } catch {
    // No Node socket (app.request() in tests, another runtime): nothing to resolve.
  }
  c.set('clientIp', peer === undefined ? 'unknown' : clientIp(peer, c.req.header('x-forwarded-for'), c.get('services').trustedProxies));
  await next();
});

/**
 * Whom a per-client budget counts: the address, or for IPv6 its /64, since one host usually holds a whole /64 and
 * could otherwise take a fresh address, and so a fresh budget, for every request.
 */
export function clientBudgetKey(ip: string): string {
  const block = slash24(ip);
  return block?.endsWith('/64') === true ? block : ip;
}

/**
 * The quota buckets of a budget counted per client (see clientBudgetKey), one per window: `<name>:<client>/<window
 * key>`. Sign-in requests and refused credentials are counted this way.
 */
export function clientBuckets(name: string, limits: readonly { window: WindowKind; limit: number }[], ip: string, now: Date): BucketRequest[] {
  const subject = encodeURIComponent(clientBudgetKey(ip));
  return limits.map(({ window, limit }) => ({
    id: `${name}:${subject}/${windowKey(window, now)}`,
    limit,
    window,
    resetAt: windowReset(window, now),
    quota: 'requests',
    subject: 'ip',
    tier: 'anonymous',
  }));
}
