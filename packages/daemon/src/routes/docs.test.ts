import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minute, seedScan } from '../test/seed.js';
import { startTestServer, type TestServer } from '../test/server.js';
import { DOCS_CSP } from './docs.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

/** The src/href values of script, link and img tags, but the empty data: icon that stops a /favicon.ico request. */
function references(html: string): string[] {
  return [...html.matchAll(/<(?:script|link|img)\b[^>]*?\b(?:src|href)="([^"]*)"/g)].map((match) => match[1] ?? '').filter((ref) => ref !== 'data:,');
}

describe('GET /docs', () => {
  it('serves an HTML page that references only same-origin assets, under a strict CSP', async () => {
    const response = await fetch(`${server.url}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toBe(DOCS_CSP);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe');
    expect(csp).toContain("default-src 'none'");
    const html = await response.text();
    expect(html).not.toMatch(/https?:\/\//);
    // No inline script: the CSP would block it, and there must be nothing it needs to allow.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const refs = references(html);
    expect(refs.length).toBeGreaterThanOrEqual(3);
    for (const ref of refs) expect(ref).toMatch(/^\/docs\/assets\/[\w.-]+$/);
  });

  it('serves every referenced asset with a JS or CSS content type', async () => {
    const html = await (await fetch(`${server.url}/docs`)).text();
    const types = new Map<string, string>();
    for (const ref of references(html)) {
      const response = await fetch(`${server.url}${ref}`);
      expect(response.status, ref).toBe(200);
      const type = response.headers.get('content-type') ?? '';
      expect(type, ref).toMatch(/^(text\/javascript|text\/css)/);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const body = await response.text();
      expect(body.length, ref).toBeGreaterThan(100);
      types.set(ref, type);
    }
    expect([...types.values()].some((type) => type.startsWith('text/css'))).toBe(true);
    // The initialiser loads this daemon's document and switches off the external validator.
    const init = await (await fetch(`${server.url}/docs/assets/init.js`)).text();
    expect(init).toContain("url: '/api/v1/openapi.json'");
    expect(init).toContain('validatorUrl: null');
    const bundle = await (await fetch(`${server.url}/docs/assets/swagger-ui-bundle.js`)).text();
    expect(bundle).toContain('SwaggerUIBundle');
  });

  it('serves nothing else under /docs/assets', async () => {
    for (const path of ['/docs/assets/package.json', '/docs/assets/..%2F..%2Fpackage.json', '/docs/assets/index.html', '/docs/assets/constructor']) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    }
  });

  it('points at an OpenAPI document that the page can load', async () => {
    const response = await fetch(`${server.url}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/api/v1/registry');
    expect(Object.keys(doc.paths)).not.toContain('/docs');
  });
});

// DESIGN.md: browser tests drive Debian's chromium; without it this one case is skipped, the others still run.
const CHROMIUM = '/usr/bin/chromium';

describe('GET /docs in a browser', () => {
  it.skipIf(!existsSync(CHROMIUM))('renders the reference offline under its CSP and runs "Try it out" against the daemon', async () => {
    await seedScan(server.services, { kind: 'npm', name: 'alpha', version: '1.0.0', rules: ['ssrf'], at: minute(0) });
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      const origins = new Set<string>();
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text().slice(0, 300));
      });
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('request', (request) => origins.add(new URL(request.url()).origin));
      await page.goto(`${server.url}/docs`);
      await page.waitForSelector('.opblock', { timeout: 20_000 });
      expect(await page.locator('.opblock').count()).toBeGreaterThan(5);

      await page.locator('.opblock-summary-path', { hasText: '/api/v1/scans/recent' }).first().click();
      await page.getByText('Try it out').first().click();
      await page.getByText('Execute').first().click();
      const live = page.locator('.live-responses-table .response .response-col_status').first();
      await live.waitFor({ timeout: 10_000 });
      expect((await live.textContent())?.trim()).toBe('200');
      expect(await page.locator('.live-responses-table').textContent()).toContain('alpha');

      expect([...origins]).toEqual([server.url]);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
