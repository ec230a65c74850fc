// Non-dataflow facts about a Python file: disabled TLS checks, HTTP bindings and transports, CORS, auth and origin
// checks, long encoded literals and computed imports. One walk over the tree's calls, attributes, assignments and strings.
import type { CodeFact, CodeFactKind } from '../../model.js';
import { qualify, type PyModule } from './program.js';
import { callArguments, dottedName, literalValue, location, snippet, stringValue, type Node } from './syntax.js';

/** FastMCP, uvicorn, hypercorn and Flask bind loopback unless told otherwise (unlike Node's listen(); aiohttp's run_app binds all). */
const PYTHON_DEFAULT_HOST = '127.0.0.1';
const HTTP_TRANSPORTS = new Set(['sse', 'streamable-http', 'streamable_http', 'http']);
const TRANSPORT_APPS = /^(sse_app|streamable_http_app|http_app|run_sse_async|run_streamable_http_async|run_http_async)$/;
const TRANSPORT_CLASSES = /(^|\.)(SseServerTransport|StreamableHTTPSessionManager|StreamableHTTPServerTransport)$/;
const AUTH_CALLS = /(^|\.)(AuthSettings|BearerAuthBackend|BearerAuthProvider|RequireAuthMiddleware|AuthenticationMiddleware|JWTVerifier|StaticTokenVerifier|HTTPBearer|HTTPBasic|APIKeyHeader|OAuth2PasswordBearer|OAuthProvider|RemoteAuthProvider)$/;
const AUTH_KEYWORDS = new Set(['auth', 'auth_server_provider', 'token_verifier', 'auth_provider']);
const ORIGIN_CALLS = /(^|\.)(TransportSecuritySettings|TrustedHostMiddleware)$/;
const BASE64_BLOB = /^[A-Za-z0-9+/_-]{200,}={0,2}$/;
const HEX_BLOB = /^(?:[0-9a-fA-F]{2}){100,}$/;

/** Words one of the call facts needs; a file without any of them has no call facts, so its calls are not walked. */
const CALL_FACT_WORDS =
  /verify|ssl|cert_reqs|\.run\b|run_app|uvicorn|hypercorn|_app\b|_async\b|Transport|SessionManager|CORS|auth|Auth|Bearer|APIKey|OAuth|Security|TrustedHost|headers|__import__|import_module/;
const FACT_ATTRIBUTE_WORDS = /CERT_NONE|_create_unverified_context|check_hostname|\.verify\s*=|access-control-allow-origin/i;
// Anchored on a quote so the scan does not restart inside every long identifier.
const ENCODED_TEXT = /^(?:[rbuRBU]{0,2}(?:"""|'''|"|')[A-Za-z0-9+/=_\s\\-]*(?:"""|'''|"|')\s*)+$/;
const BLOB_CANDIDATE = /["'][A-Za-z0-9+/=_-]{60,}/;

export function pythonFacts(module: PyModule): CodeFact[] {
  const facts: CodeFact[] = [];
  const text = module.file.text ?? '';
  const types: string[] = [];
  if (CALL_FACT_WORDS.test(text)) types.push('call');
  if (FACT_ATTRIBUTE_WORDS.test(text)) types.push('attribute', 'assignment', 'pair');
  if (BLOB_CANDIDATE.test(text)) types.push('string', 'concatenated_string');
  if (types.length === 0) return facts;
  const add = (kind: CodeFactKind, node: Node, detail?: string) => {
    const fact: CodeFact = { kind, location: location(module.path, node), snippet: snippet(node) };
    if (detail !== undefined) fact.detail = detail;
    facts.push(fact);
  };
  const serverHosts = text.includes('FastMCP') ? fastMcpHosts(module) : new Map<string, string>();

  for (const node of module.root.descendantsOfType(types)) {
    if (!node) continue;
    switch (node.type) {
      case 'call':
        if (CALL_FACT_WORDS.test(node.text)) callFacts(module, node, add, serverHosts);
        break;
      case 'attribute': {
        const name = qualify(module, dottedName(node) ?? '');
        if (name === 'ssl.CERT_NONE' || name === 'ssl._create_unverified_context') add('tls-verification-disabled', node, name);
        break;
      }
      case 'assignment': {
        const left = node.childForFieldName('left');
        const right = node.childForFieldName('right');
        const attribute = left?.type === 'attribute' ? left.childForFieldName('attribute')?.text : undefined;
        if (attribute === 'check_hostname' && right?.type === 'false') add('tls-verification-disabled', node, 'check_hostname = False');
        if (attribute === 'verify' && right?.type === 'false') add('tls-verification-disabled', node, 'verify = False');
        if (left?.type === 'subscript' && /^access-control-allow-origin$/i.test(stringValue(left.childForFieldName('subscript')) ?? '') && stringValue(right) === '*') {
          add('cors-wildcard', node);
        }
        break;
      }
      case 'pair': {
        const key = stringValue(node.childForFieldName('key'));
        if (key && /^access-control-allow-origin$/i.test(key) && stringValue(node.childForFieldName('value')) === '*') add('cors-wildcard', node);
        break;
      }
      default: {
        if (node.endIndex - node.startIndex < 200 || node.parent?.type === 'concatenated_string') break;
        // Prose (docstrings, messages) fails this at its first space or punctuation, before any decoding.
        if (!ENCODED_TEXT.test(node.text)) break;
        const value = stringValue(node);
        if (value === undefined || value.length < 200) break;
        const compact = value.replace(/\s+/g, '');
        if (HEX_BLOB.test(compact)) add('encoded-blob', node, 'hex');
        else if (BASE64_BLOB.test(compact) && /[0-9]/.test(compact) && /[A-Z]/.test(compact) && /[a-z]/.test(compact)) add('encoded-blob', node, 'base64');
      }
    }
  }
  return facts;
}

type AddFact = (kind: CodeFactKind, node: Node, detail?: string) => void;

/** Hosts FastMCP servers of this file bind to when started over HTTP: `FastMCP(host=…)` or `mcp.settings.host = …`. */
function fastMcpHosts(module: PyModule): Map<string, string> {
  const hosts = new Map<string, string>();
  for (const [name, value] of module.constants) {
    if (value.type !== 'call' || !/(^|\.)FastMCP$/.test(dottedName(value.childForFieldName('function')) ?? '')) continue;
    const host = callArguments(value).keywords.get('host');
    hosts.set(name, host ? hostText(module, host) : PYTHON_DEFAULT_HOST);
  }
  for (const assignment of module.root.descendantsOfType('assignment')) {
    const left = dottedName(assignment?.childForFieldName('left'));
    const match = left ? /^(\w+)\.settings\.host$/.exec(left) : null;
    const right = assignment?.childForFieldName('right');
    if (match && right) hosts.set(match[1]!, hostText(module, right));
  }
  return hosts;
}

/** The host a server binds: a literal, a module constant, or the default of `os.getenv("HOST", "0.0.0.0")`. */
function hostText(module: PyModule, node: Node, depth = 0): string {
  if (depth > 8) return 'unknown';
  const literal = stringValue(node);
  if (literal !== undefined) return literal;
  if (node.type === 'identifier') {
    const constant = module.constants.get(node.text);
    return constant && constant !== node ? hostText(module, constant, depth + 1) : 'unknown';
  }
  if (node.type === 'call') {
    const name = qualify(module, dottedName(node.childForFieldName('function')) ?? '');
    if (name === 'os.getenv' || name === 'os.environ.get') {
      const fallback = callArguments(node).positional[1];
      return fallback ? hostText(module, fallback, depth + 1) : 'unknown';
    }
  }
  if (node.type === 'boolean_operator') {
    const right = node.childForFieldName('right');
    return right ? hostText(module, right, depth + 1) : 'unknown';
  }
  return 'unknown';
}

function callFacts(module: PyModule, call: Node, add: AddFact, serverHosts: Map<string, string>): void {
  const callee = call.childForFieldName('function');
  const written = dottedName(callee) ?? '';
  const name = qualify(module, written);
  const method = callee?.type === 'attribute' ? callee.childForFieldName('attribute')?.text : undefined;
  const object = callee?.type === 'attribute' ? dottedName(callee.childForFieldName('object')) : undefined;
  const args = callArguments(call);

  // jwt.decode(..., verify=False) skips a signature check, not TLS: a different problem for a different rule.
  if (!/(^|\.)(jwt|jose|jws)\b|decode/i.test(name)) {
    for (const key of ['verify', 'verify_ssl', 'ssl']) {
      const value = args.keywords.get(key);
      if (value?.type === 'false') add('tls-verification-disabled', call, `${key}=False`);
    }
  }
  if (args.keywords.get('cert_reqs') && /CERT_NONE/.test(args.keywords.get('cert_reqs')!.text)) add('tls-verification-disabled', call, 'cert_reqs=CERT_NONE');

  if (name === 'uvicorn.run' || name === 'uvicorn.Config' || name === 'aiohttp.web.run_app' || name === 'web.run_app' || name === 'hypercorn.Config') {
    const host = args.keywords.get('host');
    add('http-listen', call, host ? hostText(module, host) : name.endsWith('run_app') ? '0.0.0.0' : PYTHON_DEFAULT_HOST);
  } else if (method === 'run' && object) {
    const transport = args.keywords.get('transport') ?? args.positional[0];
    const transportName = transport ? hostText(module, transport) : undefined;
    const host = args.keywords.get('host');
    if (transportName && HTTP_TRANSPORTS.has(transportName)) {
      add('mcp-http-transport', call, transportName);
      add('http-listen', call, host ? hostText(module, host) : (serverHosts.get(object) ?? PYTHON_DEFAULT_HOST));
    } else if (host && !serverHosts.has(object)) {
      // Flask / Quart style app.run(host=…).
      add('http-listen', call, hostText(module, host));
    }
  }
  if (method && TRANSPORT_APPS.test(method)) add('mcp-http-transport', call, method);
  if (TRANSPORT_CLASSES.test(name)) add('mcp-http-transport', call, name.split('.').pop());

  const middleware = method === 'add_middleware' ? dottedName(args.positional[0]) ?? '' : name;
  if (/(^|\.)CORSMiddleware$/.test(middleware) || (method === 'add_middleware' && /CORSMiddleware$/.test(dottedName(args.positional[0]) ?? ''))) {
    const origins = literalValue(args.keywords.get('allow_origins'));
    const regex = stringValue(args.keywords.get('allow_origin_regex'));
    if ((Array.isArray(origins) && origins.includes('*')) || origins === '*' || regex === '.*') add('cors-wildcard', call);
  }
  if (/(^|\.)CORS$/.test(name)) {
    const origins = args.keywords.get('origins') ?? args.keywords.get('resources');
    const value = literalValue(origins);
    if (!origins || value === '*' || (Array.isArray(value) && value.includes('*'))) add('cors-wildcard', call);
  }

  if (AUTH_CALLS.test(name) || [...args.keywords.keys()].some((key) => AUTH_KEYWORDS.has(key) && args.keywords.get(key)?.type !== 'none')) {
    if (/(^|\.)(FastMCP|MCPServer)$/.test(name) || AUTH_CALLS.test(name)) add('auth-middleware', call, name.split('.').pop());
  }
  const headerRead = method === 'get' && /headers$/.test(object ?? '') ? stringValue(args.positional[0])?.toLowerCase() : undefined;
  if (headerRead === 'authorization' || headerRead === 'x-api-key') add('auth-middleware', call, `${headerRead} header check`);
  if (headerRead === 'origin' || headerRead === 'host') add('origin-check', call, `${headerRead} header check`);

  if (ORIGIN_CALLS.test(name)) {
    const protection = args.keywords.get('enable_dns_rebinding_protection');
    if (!/TransportSecuritySettings$/.test(name) || protection?.type === 'true' || args.keywords.has('allowed_hosts') || args.keywords.has('allowed_origins')) {
      if (protection?.type !== 'false') add('origin-check', call, name.split('.').pop());
    }
  }

  if (name === '__import__' || name === 'importlib.import_module' || name === 'importlib.__import__') {
    const target = args.positional[0];
    if (target && stringValue(target) === undefined) add('dynamic-require', call, target.text.slice(0, 120));
  }
}
