import { jwtVerify, SignJWT } from 'jose';
import { ServiceError } from '@svc/core';
import type { User } from '../store/repositories.js';

/** 12 hours: a working day in the web UI or CLI; `svc login` again afterwards. There are no refresh tokens. */
export const SESSION_LIFETIME_SECONDS = 12 * 60 * 60;
export const SESSION_ISSUER = 'svcd';

export interface SessionClaims {
  userId: string;
  email: string;
}

export interface IssuedSession {
  token: string;
  expiresAt: Date;
}

/**
 * Session JWTs (DESIGN.md: HS256, `sub` = user id, `email`, `iat`, `exp`; plus `iss`). Verification pins the
 * algorithm and issuer, so `alg: none`, RS256 and other-issuer tokens fail like a bad signature does.
 */
export class SessionTokens {
  private readonly key: Uint8Array;

  constructor(
    secret: string,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  async issue(user: Pick<User, 'id' | 'email'>): Promise<IssuedSession> {
    const issuedAt = Math.floor(this.clock().getTime() / 1000);
    const expiresAt = issuedAt + SESSION_LIFETIME_SECONDS;
    const token = await new SignJWT({ email: user.email })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(user.id)
      .setIssuer(SESSION_ISSUER)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(this.key);
    return { token, expiresAt: new Date(expiresAt * 1000) };
  }

  /** The claims of a valid token; any failure is the same UNAUTHORIZED, so callers learn nothing about why. */
  async verify(token: string): Promise<SessionClaims> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: SESSION_ISSUER,
        requiredClaims: ['sub', 'exp', 'iat'],
        currentDate: this.clock(),
      });
      if (typeof payload.sub !== 'string' || typeof payload['email'] !== 'string') throw new Error('claims missing');
      return { userId: payload.sub, email: payload['email'] };
    } catch {
      throw new ServiceError('UNAUTHORIZED');
    }
  }
}
