import { ACCOUNT_TIERS, ServiceError, successEnvelope } from '@svc/core';
import { createRoute, z } from '@hono/zod-openapi';
import { requireSession } from '../middleware/session.js';
import { createRouter, envelope, errorResponses, jsonContent, SESSION_SECURITY } from '../openapi.js';

const me = createRoute({
  method: 'get',
  path: '/me',
  summary: 'The signed-in user',
  security: SESSION_SECURITY,
  middleware: [requireSession] as const,
  responses: {
    200: jsonContent(envelope(z.object({ email: z.string(), user_id: z.string(), tier: z.enum(ACCOUNT_TIERS) })), 'The profile (spec 2.6)'),
    ...errorResponses('UNAUTHORIZED', 'INTERNAL_ERROR'),
  },
});

export const meRoutes = createRouter().openapi(me, async (c) => {
  const user = await c.var.services.users.findById(c.var.session.userId);
  // A valid token of a deleted account is as good as no token.
  if (user === undefined) throw new ServiceError('UNAUTHORIZED');
  // org_id joins once teams exist (spec 2.6: only when the caller belongs to a team).
  return c.json(successEnvelope({ email: user.email, user_id: user.id, tier: user.tier }), 200);
});
