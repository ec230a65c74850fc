import { successEnvelope } from '@svc/core';
import { createRoute, z } from '@hono/zod-openapi';
import { createRouter, envelope, errorResponses, jsonContent } from '../openapi.js';

const health = createRoute({
  method: 'get',
  path: '/healthz',
  summary: 'Liveness check',
  responses: {
    200: jsonContent(envelope(z.object({ status: z.literal('ok'), version: z.string() })), 'The daemon is up'),
    ...errorResponses('INTERNAL_ERROR'),
  },
});

export const healthRoutes = createRouter().openapi(health, (c) =>
  c.json(successEnvelope({ status: 'ok' as const, version: c.get('services').version }), 200),
);
