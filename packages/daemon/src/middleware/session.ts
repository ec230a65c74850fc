import { looksLikeApiKey, ServiceError } from '@svc/core';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.js';

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
  c.set('session', await c.var.services.sessions.verify(token));
  await next();
});
