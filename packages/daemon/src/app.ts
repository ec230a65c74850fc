import { errorEnvelope, invalidField, ServiceError, toServiceError, type ErrorCode } from '@svc/core';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { requestId } from 'hono/request-id';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppEnv } from './env.js';
import { resolveClientIp } from './middleware/client-ip.js';
import { createRouter, serveOpenApiDocument } from './openapi.js';
import { authRoutes } from './routes/auth.js';
import { billingRoutes } from './routes/billing.js';
import { healthRoutes } from './routes/health.js';
import { keyRoutes } from './routes/keys.js';
import { meRoutes } from './routes/me.js';
import { ruleRoutes } from './routes/rules.js';
import { scanRoutes } from './routes/scans.js';
import { registryRoutes } from './routes/registry.js';
import { statsRoutes } from './routes/stats.js';
import { teamRoutes } from './routes/team.js';
import { versionRoutes } from './routes/versions.js';
import { docsRoutes } from './routes/docs.js';
import type { Services } from './services.js';

/** No route takes more than a small JSON document; larger bodies are refused before they are read. */
export const MAX_BODY_BYTES = 1024 * 1024;
export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * The one place that wires the daemon's HTTP behaviour (DESIGN.md convention 3). Request ids travel in the
 * X-Request-Id header and the logs only, so every error body stays exactly the envelope of spec 2.1.
 */
export function createApp(services: Services): OpenAPIHono<AppEnv> {
  const app = createRouter();

  // An incoming id (letters, digits, _ - =, at most 128) is kept so a proxy's id ties its logs to ours.
  app.use(requestId({ headerName: REQUEST_ID_HEADER, limitLength: 128 }));
  app.use(async (c, next) => {
    c.set('services', services);
    await next();
  });
  app.use(resolveClientIp);
  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    services.logger.info('request', {
      request_id: c.get('requestId'),
      client_ip: c.get('clientIp'),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round(performance.now() - started),
    });
  });
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new ServiceError('PAYLOAD_TOO_LARGE', `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
    },
  });
  // bodyLimit reads c.req.raw.body, which makes @hono/node-server build a full Request (headers, AbortSignal) even
  // for a GET (about 65 µs); no route reads a GET or HEAD body, so those skip it.
  app.use((c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next)));

  app.route('/', healthRoutes);
  app.route('/', ruleRoutes);
  app.route('/', authRoutes);
  app.route('/', meRoutes);
  app.route('/', teamRoutes);
  app.route('/', keyRoutes);
  // Behind bodyLimit like every route; its webhook reads the raw body itself (no JSON validator), as signing needs.
  app.route('/', billingRoutes);
  app.route('/', scanRoutes);
  app.route('/', registryRoutes);
  app.route('/', statsRoutes);
  app.route('/', versionRoutes);
  app.route('/', docsRoutes);
  serveOpenApiDocument(app, services.version);

  app.notFound((c) => {
    const allowed = allowedMethods(app, c.req.path);
    if (allowed.length === 0 || allowed.includes(c.req.method)) return errorResponse(c, new ServiceError('NOT_FOUND'));
    c.header('Allow', allowed.join(', '));
    return errorResponse(c, new ServiceError('METHOD_NOT_ALLOWED'));
  });

  app.onError((error, c) => {
    const serviceError = fromThrown(error);
    if (serviceError.code === 'INTERNAL_ERROR') {
      // The caller gets the generic message; the operator gets the real one, tied by the request id.
      services.logger.error('unhandled error', {
        request_id: c.get('requestId'),
        method: c.req.method,
        path: c.req.path,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
    }
    return errorResponse(c, serviceError);
  });

  return app;
}

function errorResponse(c: Context<AppEnv>, error: ServiceError): Response {
  // Set again here: a response built in the error path must carry the id as well.
  if (c.get('requestId') !== undefined) c.header(REQUEST_ID_HEADER, c.get('requestId'));
  const retryAfter = error.details?.['retry_after_seconds'];
  if (error.code === 'RATE_LIMITED' && typeof retryAfter === 'number') c.header('Retry-After', String(retryAfter));
  return c.json(errorEnvelope(error), error.status as ContentfulStatusCode);
}

// Hono and the validator raise HTTPException themselves; map the statuses that have a code.
const HTTP_EXCEPTION_CODES: Partial<Record<number, ErrorCode>> = {
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

function fromThrown(error: unknown): ServiceError {
  if (error instanceof HTTPException) {
    // The validator's only 400 is a body that does not parse as JSON.
    if (error.status === 400) return invalidField('(body)', 'The request body is not valid JSON.');
    const code = HTTP_EXCEPTION_CODES[error.status];
    if (code !== undefined) return new ServiceError(code);
  }
  return toServiceError(error);
}

/** The methods registered for a path, so an unknown method on a known path is 405 with Allow rather than 404. */
function allowedMethods(app: OpenAPIHono<AppEnv>, path: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    if (route.method === 'ALL' || !pathMatches(route.path, path)) continue;
    methods.add(route.method);
    if (route.method === 'GET') methods.add('HEAD');
  }
  return [...methods];
}

function pathMatches(pattern: string, path: string): boolean {
  const wanted = pattern.split('/');
  const actual = path.replace(/\/+$/, '').split('/');
  for (let i = 0; i < wanted.length; i++) {
    const segment = wanted[i] ?? '';
    if (segment === '*') return true;
    const part = actual[i];
    if (part === undefined) return false;
    if (segment.startsWith(':') ? part === '' : segment !== part) return false;
  }
  return wanted.length === actual.length;
}
