import { DEFAULT_ERROR_MESSAGES, ERROR_CODES, invalidField, ServiceError, type ErrorCode } from '@svc/core';
import { OpenAPIHono, z, type Hook } from '@hono/zod-openapi';
import type { AppEnv } from './env.js';

// The OpenAPI description is generated from the same zod schemas that validate requests, so the document
// cannot drift from the code (spec 9.1: the v1 shapes are defined by the OpenAPI reference).

/** A validation failure is 400 INVALID_FIELD naming the first offending field, like every other body error. */
const validationHook: Hook<unknown, AppEnv, string, undefined> = (result) => {
  if (result.success) return;
  const issue = result.error.issues[0];
  const field = issue === undefined || issue.path.length === 0 ? '(body)' : issue.path.map(String).join('.');
  throw invalidField(field, issue?.message ?? DEFAULT_ERROR_MESSAGES.INVALID_FIELD);
};

/** Every route module builds its routes on this, so all share the validation hook and feed one document. */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}

export const errorEnvelopeSchema = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .openapi('ErrorEnvelope');

export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}

export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { content: { 'application/json': { schema } }, description };
}

/** The error responses a route documents: each status with the codes it may carry. */
export function errorResponses(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = new ServiceError(code).status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries([...byStatus].map(([status, list]) => [status, jsonContent(errorEnvelopeSchema, list.join(', '))]));
}

export const SESSION_SECURITY = [{ session: [] }];
export const API_KEY_SECURITY = [{ apiKey: [] }];

/** Registers what the document needs beside the routes and serves it, as bare data like every /api/v1 route. */
export function serveOpenApiDocument(app: OpenAPIHono<AppEnv>, version: string): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'session', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'The session token of POST /auth/verify (HS256, 12 hours).',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key of POST /keys (`svc_…`; legacy `mcp_…` until 2027-04-29).',
  });
  const document = () =>
    app.getOpenAPI31Document({
      openapi: '3.1.0',
      info: { title: 'svcd', version, description: 'The svc service API. Errors are always the error envelope.' },
    });
  app.get('/api/v1/openapi.json', (c) => c.json(document()));
}
