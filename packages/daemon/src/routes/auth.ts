import { ACCOUNT_TIERS, rateLimited, ServiceError, successEnvelope } from '@svc/core';
import { createRoute, z } from '@hono/zod-openapi';
import { emailAddress } from '../auth/email.js';
import { generateLoginCode, hashLoginCode, loginCodeBuckets, LOGIN_CODE_MAX_ATTEMPTS, LOGIN_CODE_TTL_MS } from '../auth/login-codes.js';
import { createRouter, envelope, errorResponses, jsonContent } from '../openapi.js';

const BODY_ERRORS = ['INVALID_FIELD', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'INTERNAL_ERROR'] as const;

const login = createRoute({
  method: 'post',
  path: '/auth/login',
  summary: 'Mail a one-time sign-in code',
  description:
    'The answer is the same whether or not the address has an account. The code is valid 10 minutes, once, for 5 attempts. An address gets at most 1 code a minute and 10 a day (429 RATE_LIMITED, window login_minute or login_day).',
  request: { body: { required: true, ...jsonContent(z.object({ email: emailAddress }), 'The address to sign in') } },
  responses: {
    200: jsonContent(envelope(z.object({ sent: z.literal(true) })), 'The code was sent'),
    ...errorResponses('RATE_LIMITED', ...BODY_ERRORS),
  },
});

const verify = createRoute({
  method: 'post',
  path: '/auth/verify',
  summary: 'Exchange the code for a session token',
  description: 'Creates the account (tier free) on the first successful sign-in.',
  request: {
    body: {
      required: true,
      ...jsonContent(
        z.object({
          email: emailAddress,
          code: z.string({ error: 'code is required' }).trim().regex(/^\d{6}$/, { error: 'code must be the 6 digits from the email' }),
        }),
        'The address and the code mailed to it',
      ),
    },
  },
  responses: {
    200: jsonContent(
      envelope(
        z.object({
          token: z.string(),
          expires_at: z.string(),
          user: z.object({ user_id: z.string(), email: z.string(), tier: z.enum(ACCOUNT_TIERS) }),
        }),
      ),
      'A session JWT valid for 12 hours',
    ),
    ...errorResponses('UNAUTHORIZED', ...BODY_ERRORS),
  },
});

export const authRoutes = createRouter()
  .openapi(login, async (c) => {
    const { email } = c.req.valid('json');
    const { loginCodes, mail, quota, loginCodePepper, clock } = c.var.services;
    const now = clock();
    const decision = await quota.consume(loginCodeBuckets(email, now), now);
    if (!decision.allowed) {
      const { blocked } = decision;
      throw rateLimited({
        window: `login_${blocked.window}`,
        tier: 'anonymous',
        current: blocked.current,
        limit: blocked.limit,
        retry_after_seconds: blocked.retryAfterSeconds,
      });
    }
    const code = generateLoginCode();
    await loginCodes.put({ email, codeHash: hashLoginCode(email, code, loginCodePepper), expiresAt: new Date(now.getTime() + LOGIN_CODE_TTL_MS), now });
    await mail.send({
      to: email,
      subject: `Your svc sign-in code: ${code}`,
      text: `Your svc sign-in code is ${code}.\n\nIt is valid for ${LOGIN_CODE_TTL_MS / 60_000} minutes and can be used once. If you did not ask for it, ignore this email.\n`,
    });
    return c.json(successEnvelope({ sent: true as const }), 200);
  })
  // The account is created on the first successful verification, so unverified addresses leave no users behind.
  .openapi(verify, async (c) => {
    const { email, code } = c.req.valid('json');
    const { loginCodes, users, sessions, loginCodePepper, clock } = c.var.services;
    const now = clock();
    const result = await loginCodes.check({ email, codeHash: hashLoginCode(email, code, loginCodePepper), now, maxAttempts: LOGIN_CODE_MAX_ATTEMPTS });
    if (result !== 'ok') throw new ServiceError('UNAUTHORIZED', 'The code is wrong, expired or already used; ask for a new one.');
    const user = await users.findOrCreate({ email, now });
    const session = await sessions.issue(user);
    return c.json(
      successEnvelope({
        token: session.token,
        expires_at: session.expiresAt.toISOString(),
        user: { user_id: user.id, email: user.email, tier: user.tier },
      }),
      200,
    );
  });
