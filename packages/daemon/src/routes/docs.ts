import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { ServiceError } from '@svc/core';
import type { Context } from 'hono';
import type { AppEnv } from '../env.js';
import { createRouter } from '../openapi.js';

// GET /docs: the interactive reference of spec 9.1, served entirely by the daemon (Swagger UI from the
// swagger-ui-dist package) so it works on an offline or air-gapped host and loads nothing from a CDN.

const require = createRequire(import.meta.url);

export const DOCS_PATH = '/docs';
const ASSETS = '/docs/assets';

/** Our own initialiser is a file, not an inline script, so the page needs no 'unsafe-inline' for scripts. */
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/v1/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    // The default validator is an external service; the page must not call out.
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** The only files served under /docs/assets; a fixed map, so no request path ever reaches the file system. */
const ASSET_FILES: Record<string, { type: string; load: () => Promise<string | Buffer> }> = {
  'swagger-ui-bundle.js': { type: JS, load: () => readFile(require.resolve('swagger-ui-dist/swagger-ui-bundle.js')) },
  'swagger-ui.css': { type: CSS, load: () => readFile(require.resolve('swagger-ui-dist/swagger-ui.css')) },
  'init.js': { type: JS, load: async () => INIT_SCRIPT },
};

/**
 * 'self' only, plus data: images because Swagger UI's CSS inlines its icons as data URIs. Styles need no
 * 'unsafe-inline': the UI sets element styles through the DOM (CSSOM), which style-src does not restrict; a
 * headless Chromium run of this page (operations expanded, "Try it out" executed) reported no violation.
 * connect-src 'self' lets "Try it out" call this daemon and nothing else.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svcd API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSETS}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${ASSETS}/swagger-ui-bundle.js"></script>
<script src="${ASSETS}/init.js"></script>
</body>
</html>
`;

// Read on first use and kept: the files belong to the installed package and do not change while we run.
const cache = new Map<string, Promise<string | Buffer>>();

function secure(c: Context<AppEnv>): void {
  c.header('Content-Security-Policy', DOCS_CSP);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'no-referrer');
}

export const docsRoutes = createRouter()
  .get(DOCS_PATH, (c) => {
    secure(c);
    return c.html(PAGE);
  })
  .get(`${ASSETS}/:name`, async (c) => {
    const name = c.req.param('name');
    const asset = Object.hasOwn(ASSET_FILES, name) ? ASSET_FILES[name] : undefined;
    if (asset === undefined) throw new ServiceError('NOT_FOUND');
    let body = cache.get(name);
    if (body === undefined) {
      body = asset.load();
      cache.set(name, body);
      body.catch(() => cache.delete(name));
    }
    secure(c);
    c.header('Content-Type', asset.type);
    // Versioned by the installed package, not the URL, so a short cache keeps upgrades visible.
    c.header('Cache-Control', 'public, max-age=3600');
    const content = await body;
    return c.body(typeof content === 'string' ? content : new Uint8Array(content));
  });
