// Sources other than tool input: requests to the package's own HTTP routes, and answers of servers it talks to.
// Recognised by the shape of the code frameworks document, never by a package's name.
import type { AstNode } from './ast.js';
import { isFunction, memberName, objectProperty, propertyName, unwrap } from './ast.js';
import type { Callee } from './callee.js';
import { resolveCallee } from './callee.js';
import type { FileIndex } from './file-index.js';
import { staticString } from './file-index.js';

/** A function that receives a request, and which of its parameters holds the request (or the context holding it). */
export interface RequestHandler {
  fn: AstNode;
  requestParam: number;
  /** How the route is shown in a flow: `GET /stdio`, `createServer`, `export POST`. */
  route: string;
}

const ROUTE_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'del', 'all', 'options', 'head', 'use', 'any', 'on']);
/** Modules whose default export or named factory builds an app or router (`express()`, `new Hono()`, `Fastify()`). */
const SERVER_MODULES = new Set(['express', 'hono', 'fastify', 'koa', '@koa/router', 'koa-router', 'polka', 'connect', 'restify', 'h3', 'elysia', 'router', 'find-my-way']);
const HTTP_VERBS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/** `'/stdio'`, `'*'`, `['/a', '/b']`, `/^\/x/`: the first argument of a route registration. */
function routePath(node: AstNode | undefined, index: FileIndex): string | undefined {
  const current = unwrap(node);
  if (!current) return undefined;
  if (current.type === 'Literal' && current.regex) return `/${current.regex.pattern}/`;
  if (current.type === 'ArrayExpression') return routePath(current.elements[0], index);
  const text = staticString(current, index);
  return text !== undefined && (text.startsWith('/') || text === '*') ? text : undefined;
}

/** Whether `receiver` was made by a web framework (`const app = express()`, `const router = new Hono()`). */
function isServerObject(receiver: AstNode | undefined, index: FileIndex): boolean {
  const current = unwrap(receiver);
  let init: AstNode | undefined;
  if (current?.type === 'Identifier') init = unwrap(index.variables.get(current.name));
  else if (current?.type === 'CallExpression' || current?.type === 'NewExpression') init = current;
  // `express.Router()`, `Router()`, `new Hono().basePath('/api')`
  while (init?.type === 'CallExpression' && unwrap(init.callee)?.type === 'MemberExpression' && !SERVER_MODULES.has(resolveCallee(init.callee, index).module ?? '')) {
    init = unwrap(unwrap(init.callee)?.object);
  }
  if (init?.type !== 'CallExpression' && init?.type !== 'NewExpression') return false;
  const module = resolveCallee(init.callee, index).module;
  return module !== undefined && SERVER_MODULES.has(module);
}

function requestParamOf(fn: AstNode, method: string | undefined): number {
  // Express error middleware: `(err, req, res, next)`.
  return method === 'use' && (fn.params?.length ?? 0) === 4 ? 1 : 0;
}

/** A cheap first test: only calls by these names (or of `http.createServer`, `Bun.serve` …) can register routes. */
export function mayRegisterRoutes(callee: Callee, calleeNode: AstNode): boolean {
  if (calleeNode.type === 'MemberExpression') {
    const method = memberName(calleeNode);
    if (method !== undefined && (ROUTE_METHODS.has(method) || method === 'route')) return true;
  }
  return callee.name === 'createServer' || callee.name === 'createSecureServer' || callee.name === 'serve';
}

/**
 * The request handlers a call registers: `app.get('/x', fn)`, `router.post('/x', auth, fn)`, `app.use(fn)` on a
 * framework app, `fastify.route({ url, handler })`, `http.createServer(fn)`, `server.on('request', fn)`,
 * `Bun.serve({ fetch })`, `Deno.serve(fn)`. `functionOf` resolves an argument to a function of the package.
 */
export function routeHandlers(
  callee: Callee,
  call: AstNode,
  index: FileIndex,
  functionOf: (node: AstNode | undefined) => AstNode | undefined,
): RequestHandler[] {
  const args: AstNode[] = call.arguments;
  const calleeNode = unwrap(call.callee);
  const method = calleeNode?.type === 'MemberExpression' ? memberName(calleeNode) : undefined;
  const handlers = (nodes: readonly AstNode[], route: string, requestMethod?: string): RequestHandler[] =>
    nodes.flatMap((node) => {
      const fn = functionOf(node);
      return fn ? [{ fn, requestParam: requestParamOf(fn, requestMethod), route }] : [];
    });

  if ((callee.module === 'http' || callee.module === 'http2') && (callee.name === 'createServer' || callee.name === 'createSecureServer')) {
    return handlers(args.slice(-1), callee.name);
  }
  if (callee.module === 'global:Deno' && callee.name === 'serve') return handlers(args.slice(-1), 'Deno.serve');
  if (callee.module === 'global:Bun' && callee.name === 'serve') {
    const fetch = objectProperty(unwrap(args[0]), 'fetch') ?? methodOf(unwrap(args[0]), 'fetch');
    return fetch ? handlers([fetch], 'Bun.serve') : [];
  }
  if (!method || calleeNode?.type !== 'MemberExpression') return [];
  if (method === 'on') return staticString(args[0], index) === 'request' ? handlers(args.slice(1), "on('request')") : [];
  if (method === 'route') {
    // fastify.route({ method, url, handler }) / app.route('/x').get(fn) is covered by the verb call on its result.
    const options = unwrap(args[0]);
    const handler = objectProperty(options, 'handler');
    const url = staticString(objectProperty(options, 'url') ?? objectProperty(options, 'path'), index);
    return handler ? handlers([handler], `route ${url ?? ''}`.trim()) : [];
  }
  if (!ROUTE_METHODS.has(method) || method === 'on') return [];
  const path = routePath(args[0], index);
  // `map.get('/key', fallback)` is not a route: a path first, or an app made by a web framework handed a function
  // (`app.use(fn)`). Most calls by these names (`map.get(key)`) hand over no function and are not looked at further.
  if (path === undefined && !(args.some((arg) => isFunction(unwrap(arg))) && isServerObject(calleeNode.object, index))) return [];
  // Fastify's shorthand takes an options object before the handler (`app.get('/x', { schema }, fn)`).
  const rest = (path === undefined ? args : args.slice(1)).filter((arg) => unwrap(arg)?.type !== 'ObjectExpression');
  return handlers(rest, `${method.toUpperCase()} ${path ?? ''}`.trim(), method);
}

function methodOf(object: AstNode | undefined, name: string): AstNode | undefined {
  if (object?.type !== 'ObjectExpression') return undefined;
  for (const property of object.properties) {
    if (property.type === 'Property' && propertyName(property.key, property.computed) === name && isFunction(unwrap(property.value))) {
      return unwrap(property.value);
    }
  }
  return undefined;
}

/**
 * Handlers a framework calls by convention, found by the file's exports: Next.js route handlers
 * (`export async function POST(request)` in `app/…/route.ts`), Pages API routes (`export default function handler(req, res)`
 * under `pages/api/`), and Workers-style modules (`export default { fetch(request, env) }`).
 */
export function exportedRequestHandlers(index: FileIndex): RequestHandler[] {
  const path = index.parsed.file.path;
  const found: RequestHandler[] = [];
  const appRoute = /(^|\/)app\/(.*\/)?route\.[cm]?[jt]sx?$/.test(path);
  const pagesApi = /(^|\/)pages\/api\//.test(path);
  for (const statement of index.parsed.program.body as AstNode[]) {
    if (statement.type === 'ExportNamedDeclaration' && appRoute) {
      const declaration = statement.declaration;
      if (declaration?.type === 'FunctionDeclaration' && HTTP_VERBS.has(declaration.id?.name)) {
        found.push({ fn: declaration, requestParam: 0, route: `export ${declaration.id.name}` });
      }
      for (const declarator of declaration?.type === 'VariableDeclaration' ? declaration.declarations : []) {
        const init = unwrap(declarator.init);
        if (declarator.id.type === 'Identifier' && HTTP_VERBS.has(declarator.id.name) && isFunction(init)) {
          found.push({ fn: init as AstNode, requestParam: 0, route: `export ${declarator.id.name}` });
        }
      }
    }
    if (statement.type === 'ExportDefaultDeclaration') {
      const declaration = unwrap(statement.declaration);
      if (pagesApi && isFunction(declaration)) found.push({ fn: declaration as AstNode, requestParam: 0, route: 'export default' });
      const fetch = methodOf(declaration, 'fetch');
      if (fetch) found.push({ fn: fetch, requestParam: 0, route: 'export default fetch' });
    }
  }
  return found;
}

/**
 * Methods whose parameter a library fills from a remote server: an MCP SDK OAuth client provider's
 * `redirectToAuthorization(authorizationUrl)` receives a URL built from the authorization server's metadata.
 */
export const REMOTE_CALLBACK_PARAMS: Readonly<Record<string, { param: number; what: string }>> = {
  redirectToAuthorization: { param: 0, what: "the authorization URL built from the authorization server's metadata" },
};

/** Methods of an MCP client whose result is what the connected server sent. */
const MCP_CLIENT_METHODS = new Set(['callTool', 'readResource', 'getPrompt', 'listTools', 'listPrompts', 'listResources', 'listResourceTemplates', 'complete']);
/** MCP SDK auth helpers that return what an authorization server published. */
const OAUTH_DISCOVERY = new Set([
  'discoverOAuthMetadata', 'discoverAuthorizationServerMetadata', 'discoverOAuthProtectedResourceMetadata', 'startAuthorization',
  'exchangeAuthorization', 'refreshAuthorization', 'registerClient',
]);

/** Whether a call returns what a remote server sent (beyond a request to a fixed host, handled with the sinks). */
export function returnsRemoteData(callee: Callee, method: string | undefined): boolean {
  if (method !== undefined && MCP_CLIENT_METHODS.has(method)) return true;
  return OAUTH_DISCOVERY.has(callee.name) && (callee.module === undefined || /modelcontextprotocol/.test(callee.module));
}
