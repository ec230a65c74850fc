import type { BucketStanding } from '@svc/core';
import type { SessionClaims } from './auth/session.js';
import type { Services } from './services.js';
import type { ApiKeyRecord } from './store/repositories.js';

/** The typed context of every handler: `c.var.services`, `c.var.requestId`, `c.var.clientIp`, `c.var.session` behind requireSession, `c.var.apiKey` behind requireApiKey. */
export interface AppEnv {
  Variables: {
    services: Services;
    requestId: string;
    clientIp: string;
    session: SessionClaims;
    /** The calling key, behind requireApiKey. */
    apiKey: ApiKeyRecord;
    /** The tightest request bucket the credential's middleware counted, for routes that count more (scan submit). */
    rateLimit: BucketStanding | null;
  };
}
