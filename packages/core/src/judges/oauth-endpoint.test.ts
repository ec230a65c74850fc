import { describe, expect, it } from 'vitest';
import type { CodeFact } from '../scan/model.js';
import { oauthEndpointOf } from './oauth-endpoint.js';
import { context, finding, sourceFile } from './test-builders.js';

const handler = (name: string, corsCall = 'cors()') =>
  [
    "import cors from 'cors';",
    "import express from 'express';",
    `export function ${name}(options) {`,
    '    const router = express.Router();',
    `    router.use(${corsCall});`,
    "    router.post('/', (req, res) => res.json(options.handle(req.body)));",
    '    return router;',
    '}',
  ].join('\n');

const router = [
  "import { metadataHandler } from './metadata.js';",
  "import { tokenHandler } from './token.js';",
  "import { searchHandler } from './search.js';",
  'export function authRouter(metadata) {',
  '    const router = express.Router();',
  "    router.use('/.well-known/oauth-authorization-server', metadataHandler(metadata));",
  '    router.use(new URL(metadata.token_endpoint).pathname, tokenHandler(metadata));',
  "    router.use('/api/search', searchHandler(metadata));",
  '    return router;',
  '}',
].join('\n');

function corsFinding(file: string, line = 5) {
  return finding({ ruleId: 'cors-wildcard', category: 'insecure-transport', severity: 'medium', evidence: 'cors()', location: { file, line, column: 5 } });
}

function corsContext(extra: { files?: ReturnType<typeof sourceFile>[]; facts?: CodeFact[] } = {}) {
  return context({
    files: [
      sourceFile('dist/auth/router.js', router),
      sourceFile('dist/auth/metadata.js', handler('metadataHandler')),
      sourceFile('dist/auth/token.js', handler('tokenHandler')),
      sourceFile('dist/auth/search.js', handler('searchHandler')),
      ...(extra.files ?? []),
    ],
    facts: extra.facts ?? [],
  });
}

describe('oauthEndpointOf', () => {
  it('recognises a handler factory that an importer mounts at a well-known metadata path', () => {
    expect(oauthEndpointOf(corsFinding('dist/auth/metadata.js'), corsContext())).toEqual({
      endpoint: 'the metadata document /.well-known/oauth-authorization-server',
      evidence: 'dist/auth/router.js:6',
      credentials: false,
    });
  });

  it('recognises the token endpoint mounted at the path its metadata field names', () => {
    expect(oauthEndpointOf(corsFinding('dist/auth/token.js'), corsContext())).toMatchObject({ endpoint: 'the token endpoint', evidence: 'dist/auth/router.js:7' });
  });

  it('does not take an ordinary API route for an OAuth endpoint', () => {
    expect(oauthEndpointOf(corsFinding('dist/auth/search.js'), corsContext())).toBeUndefined();
  });

  it('notices when the CORS setup lets credentials cross origins', () => {
    const withCookies = context({
      files: [sourceFile('dist/auth/router.js', router), sourceFile('dist/auth/token.js', handler('tokenHandler', 'cors({ origin: true, credentials: true })'))],
    });
    expect(oauthEndpointOf(corsFinding('dist/auth/token.js'), withCookies)).toMatchObject({ endpoint: 'the token endpoint', credentials: true });
  });

  it('reads the route on the CORS line itself', () => {
    const inline = sourceFile('dist/server.js', "app.get('/.well-known/oauth-protected-resource', cors(), (req, res) => res.json(resource));\n");
    expect(oauthEndpointOf(corsFinding('dist/server.js', 1), corsContext({ files: [inline] }))).toMatchObject({
      endpoint: 'the metadata document /.well-known/oauth-protected-resource',
    });
  });

  it('gives up when the same file serves MCP, whose endpoint the CORS setup may cover too', () => {
    const transport: CodeFact = { kind: 'mcp-http-transport', location: { file: 'dist/auth/metadata.js', line: 7, column: 1 }, snippet: 'new StreamableHTTPServerTransport()' };
    expect(oauthEndpointOf(corsFinding('dist/auth/metadata.js'), corsContext({ facts: [transport] }))).toBeUndefined();
  });

  it('ignores a mount of a same-named function from a file that does not import this one', () => {
    const unrelated = context({
      files: [sourceFile('dist/other/router.js', router.replace("'./metadata.js'", "'./elsewhere.js'")), sourceFile('dist/auth/metadata.js', handler('metadataHandler'))],
    });
    expect(oauthEndpointOf(corsFinding('dist/auth/metadata.js'), unrelated)).toBeUndefined();
  });

  it('only speaks about CORS findings', () => {
    const other = finding({ ruleId: 'missing-origin-validation', category: 'insecure-transport', evidence: 'x', location: { file: 'dist/auth/metadata.js', line: 5, column: 1 } });
    expect(oauthEndpointOf(other, corsContext())).toBeUndefined();
  });
});
