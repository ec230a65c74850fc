import { ACCOUNT_TIERS, ServiceError, successEnvelope } from '@svc/core';
import { createRoute, z } from '@hono/zod-openapi';
import { emailAddress } from '../auth/email.js';
import {
  generateLoginCode,
  hashLoginCode,
  loginCodeBuckets,
  LOGIN_CODE_LIMITS,
  LOGIN_CODE_MAX_ATTEMPTS,
  LOGIN_CODE_TTL_MS,
  LOGIN_IP_LIMITS,
  signInIpBuckets,
  signInRateLimitError,
  VERIFY_IP_LIMITS,
} from '../auth/login-codes.js';
import { MailDeliveryError } from '../mail/smtp.js';
import { createRouter, envelope, errorResponses, jsonContent } from '../openapi.js';

const BODY_ERRORS = ['INVALID_FIELD', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'INTERNAL_ERROR'] as const;

/** `1 a minute and 10 a day`, so the documented numbers are the enforced ones. */
function perWindow(limits: readonly { window: string; limit: number }[]): string {
  return limits.map(({ window, limit }) => `${limit} a ${window}`).join(' and ');
}

const login = createRoute({
  method: 'post',
  path: '/auth/login',
  summary: 'Mail a one-time sign-in code',
  description:
    `The answer is the same whether or not the address has an account. The code is valid ${LOGIN_CODE_TTL_MS / 60_000} minutes, once, for ${LOGIN_CODE_MAX_ATTEMPTS} attempts. ` +
    `An address gets at most ${perWindow(LOGIN_CODE_LIMITS)} (429 RATE_LIMITED, details.window login_minute or login_day); ` +
    `one client address may ask for at most ${perWindow(LOGIN_IP_LIMITS)}, whatever the addresses (window login_ip_minute or login_ip_day). ` +
    'Windows are UTC calendar minutes and days; a 429 carries Retry-After. ' +
    'When the mail server does not take the message the answer is 503 SERVICE_UNAVAILABLE (the reason is in the operator log only) and the address must wait out its minute.',
  request: { body: { required: true, ...jsonContent(z.object({ email: emailAddress }), 'The address to sign in') } },
  responses: {
    200: jsonContent(envelope(z.object({ sent: z.literal(true) })), 'The code was sent'),
    ...errorResponses('RATE_LIMITED', 'SERVICE_UNAVAILABLE', ...BODY_ERRORS),
  },
});

const verify = createRoute({
  method: 'post',
  path: '/auth/verify',
  summary: 'Exchange the code for a session token',
  description:
    'Creates the account (tier free) on the first successful sign-in. ' +
    `Every attempt, right or wrong, counts toward the client address's budget of ${perWindow(VERIFY_IP_LIMITS)} ` +
    '(429 RATE_LIMITED with Retry-After, details.window verify_ip_minute or verify_ip_day); a code itself allows ' +
    `${LOGIN_CODE_MAX_ATTEMPTS} attempts.`,
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
    ...errorResponses('UNAUTHORIZED', 'RATE_LIMITED', ...BODY_ERRORS),
  },
});

export const authRoutes = createRouter()
  .openapi(login, async (c) => {
    const { email } = c.req.valid('json');
    const { loginCodes, mail, quota, loginCodePepper, clock, logger } = c.get('services');
    const now = clock();
    // One consume for both budgets: a request refused by either counts toward neither.
    const decision = await quota.consume([...loginCodeBuckets(email, now), ...signInIpBuckets('login', c.get('clientIp'), now)], now);
    if (!decision.allowed) throw signInRateLimitError('login', decision.blocked);
    const code = generateLoginCode();
    // Mailed before it is stored: storing replaces the address's previous code, which must stay valid when
    // this one never arrives.
    try {
      await mail.send({
        to: email,
        subject: `Your svc sign-in code: ${code}`,
        text: `Your svc sign-in code is ${code}.\n\nIt is valid for ${LOGIN_CODE_TTL_MS / 60_000} minutes and can be used once. If you did not ask for it, ignore this email.\n`,
      });
    } catch (error) {
      if (!(error instanceof MailDeliveryError)) throw error;
      logger.error('sign-in mail not sent', { request_id: c.get('requestId'), reason: error.reason });
      throw new ServiceError('SERVICE_UNAVAILABLE', 'The sign-in code could not be mailed; try again in a minute.');
    }
    await loginCodes.put({ email, codeHash: hashLoginCode(email, code, loginCodePepper), expiresAt: new Date(now.getTime() + LOGIN_CODE_TTL_MS), now });
    return c.json(successEnvelope({ sent: true as const }), 200);
  })
  // The account is created on the first successful verification, so unverified addresses leave no users behind.
  .openapi(verify, async (c) => {
    const { email, code } = c.req.valid('json');
    const { loginCodes, users, sessions, quota, loginCodePepper, clock } = c.get('services');
    const now = clock();
    const decision = await quota.consume(signInIpBuckets('verify', c.get('clientIp'), now), now);
    if (!decision.allowed) throw signInRateLimitError('verify', decision.blocked);
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
