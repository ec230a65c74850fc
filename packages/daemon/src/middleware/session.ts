import { bucketsFor, looksLikeApiKey, rateLimitError, rateLimitHeaders, ServiceError } from '@svc/core';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.js';
import type { SessionClaims } from '../auth/session.js';
import type { User } from '../store/repositories.js';
import { checkRefusedBudget, refusedCredential } from './refused-credentials.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The credential of an `Authorization: Bearer …` header, or undefined when there is none. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return BEARER.exec(header)?.[1];
}

/**
 * Session-JWT routes (spec 5.4). An API key here is refused with a message that names the right
 * credential (DESIGN.md), since "invalid credential" would send its owner hunting for a typo.
 */
export const requireSession = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearerToken(c.req.header('authorization'));
  if (token === undefined) throw new ServiceError('UNAUTHORIZED');
  if (looksLikeApiKey(token)) {
    throw new ServiceError(
      'UNAUTHORIZED',
      'This route needs a session token (sign in with `svc login` or POST /auth/verify); API keys are not accepted here.',
      { credential: 'session' },
    );
  }
  await checkRefusedBudget(c);
  let session: SessionClaims;
  try {
    session = await c.get('services').sessions.verify(token);
  } catch (error) {
    throw error instanceof ServiceError && error.code === 'UNAUTHORIZED' ? await refusedCredential(c, error) : error;
  }
  c.set('user', await countSessionRequest(c, session.userId));
  c.set('session', session);
  await next();
});

/** The web routes open to anonymous callers (POST /scan): no header is anonymous, a header must be a valid session. */
export const optionalSession = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.header('authorization') === undefined) return next();
  return requireSession(c, next);
});

/**
 * DESIGN.md "What counts where": a session's requests count toward the per-user cap shared with the user's keys
 * (8000 per 5 minutes), and toward the cap of the Authorization value itself, like a key's.
 */
async function countSessionRequest(c: Context<AppEnv>, userId: string): Promise<User> {
  const { users, requestQuota, clock } = c.get('services');
  const user = await users.findById(userId);
  // A valid token of a deleted account is as good as no token.
  if (user === undefined) throw await refusedCredential(c);
  const now = clock();
  const plan = bucketsFor({ kind: 'request', authorization: c.req.header('authorization'), userId, tier: user.tier }, now);
  if (plan.ok) {
    const decision = await requestQuota.consume(plan.buckets, now);
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.header(name, value);
    if (!decision.allowed) throw rateLimitError(decision.blocked);
    c.set('rateLimit', decision.tightest);
  }
  return user;
}
