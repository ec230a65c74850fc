import type { BucketStanding } from '@svc/core';
import type { SessionClaims } from './auth/session.js';
import type { Services } from './services.js';
import type { ApiKeyRecord, User } from './store/repositories.js';

/**
 * The typed context of every handler: `c.get('services')`, `c.get('requestId')`, `c.get('clientIp')`, `c.get('session')`
 * behind requireSession, `c.get('apiKey')` behind requireApiKey. Read with c.get, not c.var: Hono builds a fresh
 * object of all variables on every c.var access, which showed up in the API benchmark's profile.
 */
export interface AppEnv {
  Variables: {
    services: Services;
    requestId: string;
    clientIp: string;
    session: SessionClaims;
    /** The calling key, behind requireApiKey. */
    apiKey: ApiKeyRecord;
    /** The signed-in user (the session's, or the key's owner), read once by the credential's middleware. */
    user: User;
    /** The tightest request bucket the credential's middleware counted, for routes that count more (scan submit). */
    rateLimit: BucketStanding | null;
  };
}
