import type { SessionClaims } from './auth/session.js';
import type { Services } from './services.js';

/** The typed context of every handler: `c.var.services`, `c.var.requestId`, `c.var.clientIp`, and `c.var.session` behind requireSession. */
export interface AppEnv {
  Variables: {
    services: Services;
    requestId: string;
    clientIp: string;
    session: SessionClaims;
  };
}
