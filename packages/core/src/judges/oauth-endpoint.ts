// Whether a CORS wildcard sits on an OAuth endpoint that the specifications open to browser clients on purpose:
// authorization-server and protected-resource metadata (RFC 8414, RFC 9728, OpenID discovery), dynamic client
// registration (RFC 7591), and the token and revocation endpoints public browser clients call with PKCE (OAuth 2.0 for
// Browser-Based Apps). Those answer either public documents or requests that carry their own proof (a code and its
// verifier, a refresh token), so a foreign page gains nothing a plain HTTP client would not, unless cookies go along.
import path from 'node:path/posix';
import type { Finding, SourceFile } from '../scan/model.js';
import { fileOf } from './finding-context.js';
import { RELATIVE_STRING, resolveFile } from './package-reach.js';
import type { JudgeContext } from './panel.js';

export interface OAuthEndpoint {
  /** What the endpoint is, in words for a reason: "the token endpoint". */
  endpoint: string;
  /** Where that was learnt: the route or mount, file:line. */
  evidence: string;
  /** The CORS setup lets cookies or other ambient credentials cross origins (credentials: true, Allow-Credentials). */
  credentials: boolean;
}

/** Route paths the specifications fix, and the metadata fields (RFC 8414) that carry the others' URLs. */
const WELL_KNOWN = /^\/\.well-known\/(?:oauth-authorization-server|oauth-protected-resource|openid-configuration)\b/;
const ENDPOINT_FIELD = /\b(token|registration|revocation)_endpoint\b/;
const ENDPOINT_NAMES: Record<string, string> = {
  token: 'the token endpoint',
  registration: 'the dynamic client registration endpoint (RFC 7591)',
  revocation: 'the token revocation endpoint (RFC 7009)',
};
const CREDENTIALS = /\bcredentials\s*:\s*true\b|access-control-allow-credentials|allow_credentials\s*=\s*True/i;
/** `function name(` / `name = (` / `name(…) {`: the function a line sits in, searched upwards. */
const FUNCTION_HEAD = /(?:function\s+([\w$]+)\s*\(|(?:const|let|var)\s+([\w$]+)\s*=\s*(?:async\s*)?(?:function\b|\()|^\s*(?:async\s+)?([\w$]+)\s*\([^)]*\)\s*\{)/;

const KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'return', 'function']);

/** Two judges ask about the same finding; the answer is kept per finding object. */
const answers = new WeakMap<Finding, OAuthEndpoint | undefined>();

/** The OAuth endpoint a `cors-wildcard` finding's CORS setup serves, when the code shows it serves one and nothing else. */
export function oauthEndpointOf(finding: Finding, context: JudgeContext): OAuthEndpoint | undefined {
  if (!answers.has(finding)) answers.set(finding, lookUp(finding, context));
  return answers.get(finding);
}

function lookUp(finding: Finding, context: JudgeContext): OAuthEndpoint | undefined {
  if (finding.ruleId !== 'cors-wildcard' || !finding.location) return undefined;
  const { file, line } = finding.location;
  // A CORS setup in a file that also serves MCP may cover the MCP endpoint itself.
  if (context.facts.some((fact) => fact.kind === 'mcp-http-transport' && fact.location.file === file)) return undefined;
  const text = fileOf(context.files, file)?.text;
  if (text === undefined) return undefined;
  const lines = text.split(/\r?\n/);
  const credentials = CREDENTIALS.test(text);
  const found = mountedHere(lines, line, file) ?? mountedByImporter(lines, line, file, context.files);
  return found ? { ...found, credentials } : undefined;
}

/** `app.get('/.well-known/oauth-authorization-server', cors(), …)`: the route on the CORS line itself. */
function mountedHere(lines: string[], line: number, file: string): Omit<OAuthEndpoint, 'credentials'> | undefined {
  const text = lines[line - 1] ?? '';
  const route = /(['"`])(\/[^'"`\s]*)\1/.exec(text)?.[2];
  if (route && WELL_KNOWN.test(route)) return { endpoint: `the metadata document ${route}`, evidence: `${file}:${line}` };
  const field = ENDPOINT_FIELD.exec(text)?.[1];
  if (field) return { endpoint: ENDPOINT_NAMES[field]!, evidence: `${file}:${line}` };
  return undefined;
}

/**
 * A handler factory (`export function tokenHandler() { router.use(cors()) … }`) mounted by a file that imports it:
 * `router.use(new URL(metadata.token_endpoint).pathname, tokenHandler(…))` or `router.use('/.well-known/…', …)`.
 */
function mountedByImporter(lines: string[], line: number, file: string, files: readonly SourceFile[]): Omit<OAuthEndpoint, 'credentials'> | undefined {
  const factory = enclosingFunction(lines, line);
  if (!factory) return undefined;
  const call = new RegExp(`\\b${factory.replace(/\$/g, '\\$')}\\s*\\(`);
  for (const importer of files) {
    // Cheap test first: most files never call the factory, and bundles are megabytes.
    if (importer.path === file || importer.text === undefined || !call.test(importer.text) || !importsFile(importer, file, files)) continue;
    const importerLines = importer.text.split(/\r?\n/);
    for (const [index, candidate] of importerLines.entries()) {
      if (!call.test(candidate)) continue;
      const mount = mountedHere(importerLines, index + 1, importer.path);
      if (mount) return mount;
    }
  }
  return undefined;
}

function enclosingFunction(lines: string[], line: number): string | undefined {
  for (let index = line - 1; index >= 0 && index >= line - 60; index -= 1) {
    const head = FUNCTION_HEAD.exec(lines[index] ?? '');
    const name = head?.[1] ?? head?.[2] ?? head?.[3];
    if (name && !KEYWORDS.has(name)) return name;
  }
  return undefined;
}

function importsFile(importer: SourceFile, file: string, files: readonly SourceFile[]): boolean {
  for (const match of importer.text!.matchAll(RELATIVE_STRING)) {
    if (resolveFile(path.join(path.dirname(importer.path), match[2]!), files) === file) return true;
  }
  return false;
}
