import { randomUUID } from 'node:crypto';
import {
  canMintApiKeys,
  unsafeNameCharacter,
  effectiveTier,
  generateApiKey,
  hashApiKey,
  invalidField,
  MAX_ACTIVE_KEYS,
  parseAllowlist,
  parseScopes,
  resolveExpiry,
  SCOPES,
  ServiceError,
  successEnvelope,
} from '@svc/core';
import { createRoute, z } from '@hono/zod-openapi';
import { isRecordUsable, requireApiKey } from '../middleware/api-key.js';
import { requireSession } from '../middleware/session.js';
import { API_KEY_SECURITY, createRouter, envelope, errorResponses, jsonContent, SESSION_SECURITY } from '../openapi.js';
import type { ApiKeyRecord } from '../store/repositories.js';

// Key management is the spec's "dashboard" (5.1 rule 9); DESIGN.md puts it on session-JWT routes.

const BODY_ERRORS = ['INVALID_FIELD', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'INTERNAL_ERROR'] as const;

const keySummary = z.object({
  id: z.string(),
  prefix: z.string(),
  last4: z.string(),
  label: z.string(),
  scopes: z.array(z.string()),
  expires_at: z.string(),
  ip_allowlist: z.array(z.string()),
  last_used_at: z.string().nullable(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
});

function summary(key: ApiKeyRecord): z.infer<typeof keySummary> {
  return {
    id: key.id,
    prefix: key.prefix,
    last4: key.last4,
    label: key.label,
    scopes: key.scopes,
    expires_at: key.expiresAt,
    ip_allowlist: key.ipAllowlist,
    last_used_at: key.lastUsedAt,
    created_at: key.createdAt,
    revoked_at: key.revokedAt,
  };
}

const createKey = createRoute({
  method: 'post',
  path: '/keys',
  summary: 'Create an API key',
  description: `Paid plans only (402 SUBSCRIPTION_REQUIRED). At most ${MAX_ACTIVE_KEYS} active keys (409 KEY_LIMIT_REACHED). The key is in this answer only; it is stored hashed.`,
  security: SESSION_SECURITY,
  middleware: [requireSession] as const,
  request: {
    body: {
      required: true,
      ...jsonContent(
        z.object({
          label: z.string({ error: 'label is required' }).trim().min(1, { error: 'label must not be empty' }).max(100, { error: 'label may have at most 100 characters' })
            .refine((label) => unsafeNameCharacter(label) === undefined, { error: 'label must not contain control, line-break or bidi characters' }),
          // Checked by core's parseScopes, parseAllowlist and resolveExpiry, whose messages name the allowed values.
          scopes: z.array(z.string()).optional().openapi({ description: `Default scan:submit, scan:list, scan:get. Allowed: ${SCOPES.join(', ')}` }),
          expires_in_days: z.number().optional().openapi({ description: 'Whole days from 1 to 365; default 90' }),
          ip_allowlist: z.array(z.string()).optional().openapi({ description: 'Up to 20 IPv4/IPv6 addresses or CIDRs; empty: no restriction' }),
        }),
        'The new key',
      ),
    },
  },
  responses: {
    201: jsonContent(
      envelope(z.object({ id: z.string(), key: z.string(), prefix: z.string(), label: z.string(), scopes: z.array(z.string()), expires_at: z.string(), ip_allowlist: z.array(z.string()) })),
      'The key, shown only here',
    ),
    ...errorResponses('UNAUTHORIZED', 'SUBSCRIPTION_REQUIRED', 'KEY_LIMIT_REACHED', ...BODY_ERRORS),
  },
});

const listKeys = createRoute({
  method: 'get',
  path: '/keys',
  summary: 'List your API keys',
  description: 'Active keys (unrevoked, unexpired) unless `all=true`, which adds revoked and expired ones. The secret is never listed.',
  security: SESSION_SECURITY,
  middleware: [requireSession] as const,
  request: { query: z.object({ all: z.enum(['true', 'false']).optional() }) },
  responses: {
    200: jsonContent(envelope(z.array(keySummary)), 'The keys, oldest first'),
    ...errorResponses('UNAUTHORIZED', 'INVALID_FIELD', 'INTERNAL_ERROR'),
  },
});

const revokeKey = createRoute({
  method: 'delete',
  path: '/keys/{id}',
  summary: 'Revoke an API key',
  description: 'Unknown ids, other users’ keys and keys already revoked are all 404 NOT_FOUND.',
  security: SESSION_SECURITY,
  middleware: [requireSession] as const,
  request: { params: z.object({ id: z.string() }) },
  responses: {
    200: jsonContent(envelope(z.object({ id: z.string(), revoked: z.literal(true) })), 'The key no longer works'),
    ...errorResponses('UNAUTHORIZED', 'NOT_FOUND', 'INTERNAL_ERROR'),
  },
});

const selfKey = createRoute({
  method: 'get',
  path: '/api/v1/keys/self',
  summary: 'The calling API key',
  description: 'Lets a CI job check its key (any valid key; no scope needed). Counts toward the request limits like every API-key request.',
  security: API_KEY_SECURITY,
  middleware: [requireApiKey()] as const,
  responses: {
    200: jsonContent(envelope(z.object({ id: z.string(), prefix: z.string(), label: z.string(), scopes: z.array(z.string()), expires_at: z.string() })), 'The key'),
    ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED', 'INTERNAL_ERROR'),
  },
});

export const keyRoutes = createRouter()
  .openapi(createKey, async (c) => {
    const body = c.req.valid('json');
    const { apiKeys, teams, clock } = c.get('services');
    const now = clock();
    const scopes = parseScopes(body.scopes);
    if (!scopes.ok) throw invalidField('scopes', scopes.message, { invalid: scopes.invalid });
    const expiresAt = resolveExpiry(body.expires_in_days, now);
    const ipAllowlist = parseAllowlist(body.ip_allowlist);

    const user = c.get('user');
    // The plan that pays is the user's or their team's, whichever ranks higher: a free member of a Team-plan team
    // mints keys like any member (the same rule as scan submission).
    const membership = await teams.membershipOf(user.id);
    if (!canMintApiKeys(effectiveTier(user.tier, membership?.teamTier).tier)) {
      throw new ServiceError('SUBSCRIPTION_REQUIRED', 'API keys need a paid plan (Developer, Team or Business), your own or your team\'s.');
    }

    const generated = generateApiKey();
    const created = await apiKeys.createWithinLimit(
      {
        id: randomUUID(),
        userId: user.id,
        hash: hashApiKey(generated.key),
        prefix: generated.prefix,
        last4: generated.last4,
        label: body.label,
        scopes: scopes.scopes,
        ipAllowlist,
        expiresAt: expiresAt.toISOString(),
        createdAt: now.toISOString(),
      },
      { now, maxActive: MAX_ACTIVE_KEYS },
    );
    if (created === undefined) throw new ServiceError('KEY_LIMIT_REACHED');
    return c.json(
      successEnvelope({
        id: created.id,
        key: generated.key,
        prefix: created.prefix,
        label: created.label,
        scopes: created.scopes,
        expires_at: created.expiresAt,
        ip_allowlist: created.ipAllowlist,
      }),
      201,
    );
  })
  .openapi(listKeys, async (c) => {
    const { all } = c.req.valid('query');
    const { apiKeys, clock } = c.get('services');
    const now = clock();
    const keys = await apiKeys.listByUser(c.get('session').userId);
    const shown = all === 'true' ? keys : keys.filter((key) => isRecordUsable(key, now));
    return c.json(successEnvelope(shown.map(summary)), 200);
  })
  .openapi(revokeKey, async (c) => {
    const { id } = c.req.valid('param');
    const { apiKeys, clock } = c.get('services');
    if (!(await apiKeys.revoke({ userId: c.get('session').userId, id, now: clock() }))) throw new ServiceError('NOT_FOUND');
    return c.json(successEnvelope({ id, revoked: true as const }), 200);
  })
  .openapi(selfKey, (c) => {
    const key = c.get('apiKey');
    return c.json(successEnvelope({ id: key.id, prefix: key.prefix, label: key.label, scopes: key.scopes, expires_at: key.expiresAt }), 200);
  });
