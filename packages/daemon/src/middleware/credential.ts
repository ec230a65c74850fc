import { bucketsFor, looksLikeApiKey, rateLimitError, rateLimitHeaders, type Scope } from '@svc/core';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.js';
import type { User } from '../store/repositories.js';
import { requireApiKey } from './api-key.js';
import { clientBudgetKey } from './client-ip.js';
import { bearerToken, requireSession } from './session.js';

/**
 * Routes open to everyone that still honour a credential when one is sent (spec 4.5: "if a key is supplied on a
 * public route, its use still counts toward the per-user aggregate cap"; spec 4.6 rule 4: the stream resolves the
 * caller's org). No Authorization header: anonymous. Otherwise the credential is checked exactly as on its own
 * routes, an API key with `scope`: a wrong or expired one is 401, never silently anonymous, so a CI job with a
 * revoked key learns it at once.
 */
export function optionalCredential(scope: Scope) {
  const apiKey = requireApiKey(scope);
  return createMiddleware<AppEnv>(async (c, next) => {
    const header = c.req.header('authorization');
    if (header === undefined) return countAnonymousRequest(c, next);
    const token = bearerToken(header);
    return token !== undefined && looksLikeApiKey(token) ? apiKey(c, next) : requireSession(c, next);
  });
}

/** The signed-in caller behind requireApiKey, requireSession or optionalCredential; undefined when anonymous. */
export function callerId(c: Context<AppEnv>): string | undefined {
  return (c.get('user') as User | undefined)?.id;
}

/**
 * A caller without a credential on an open route counts per client address (IPv6: per /64) with the cap a
 * credential has, 8000 requests per 5 minutes (429 window `ip_requests`): the public routes read the database,
 * and nothing else would stop one address from hammering them.
 */
export const countAnonymousRequest = createMiddleware<AppEnv>(async (c, next) => {
  const { requestQuota, clock } = c.get('services');
  const now = clock();
  const plan = bucketsFor({ kind: 'request', ip: clientBudgetKey(c.get('clientIp')) }, now);
  if (plan.ok) {
    const decision = await requestQuota.consume(plan.buckets, now);
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.header(name, value);
    if (!decision.allowed) throw rateLimitError(decision.blocked);
  }
  await next();
});
