// The package's own HTTP routes, whose request data is an `http-request` source: Flask / Quart / FastAPI / Starlette /
// Sanic / Bottle route decorators, aiohttp and Starlette route tables, and `http.server` request handler classes.
// Which parameters carry request data depends on the framework: path, query and body parameters of a FastAPI
// function (not its `Depends(...)` or framework objects), the whole `request` object of aiohttp and Starlette, and
// `self` of an `http.server` handler (`self.path`, `self.headers`, `self.rfile`). Flask's global `request` is read
// where it is used (see WEB_REQUEST_OBJECTS).
import { qualify, type PyModule, type PyProgram } from './program.js';
import { callArguments, dottedName, functionParameters, parameterName, stringValue, type Node } from './syntax.js';

export interface PyRoute {
  module: PyModule;
  definition: Node;
  /** `GET /run/<name>`, `do_POST` …: shown in the flow's first step. */
  route: string;
  /** Parameter names that hold request data. */
  parameters: Set<string>;
}

/** Module-level objects that are the current request of a framework with a global request (Flask, Quart, Bottle). */
export const WEB_REQUEST_OBJECTS = new Set(['flask.request', 'quart.request', 'bottle.request']);

const WEB_FRAMEWORKS = /^(flask|quart|fastapi|starlette|sanic|bottle|aiohttp|litestar|falcon)\b/;
const ROUTE_DECORATOR = /^(route|get|post|put|patch|delete|head|options|websocket|api_route|view)$/;
const ROUTE_TABLE = /^(add_get|add_post|add_put|add_patch|add_delete|add_route|add_api_route|add_url_rule|Route|get|post|put|patch|delete)$/;
/** Parameters a framework fills with its own objects, not with request data. */
const FRAMEWORK_TYPES = /\b(BackgroundTasks|Session|AsyncSession|Response|Settings|Config)\b/;
const REQUEST_TYPES = /\b(Request|WebSocket|BaseRequest)\b/;

function usesWebFramework(module: PyModule): boolean {
  for (const binding of module.imports.values()) if (WEB_FRAMEWORKS.test(binding.module) || WEB_FRAMEWORKS.test(binding.name ?? '')) return true;
  return false;
}

function requestParameters(definition: Node): Set<string> {
  const names = new Set<string>();
  for (const parameter of functionParameters(definition)) {
    const name = parameterName(parameter);
    if (!name || name === 'self' || name === 'cls') continue;
    const type = parameter.childForFieldName('type')?.text ?? '';
    const value = parameter.childForFieldName('value')?.text ?? '';
    if (/\bDepends\(/.test(value) || (FRAMEWORK_TYPES.test(type) && !REQUEST_TYPES.test(type))) continue;
    names.add(name);
  }
  return names;
}

export function findRoutes(program: PyProgram): PyRoute[] {
  const routes: PyRoute[] = [];
  for (const module of program.modules) {
    const web = usesWebFramework(module);
    if (web) {
      for (const decorated of module.decorated) {
        const definition = decorated.childForFieldName('definition');
        if (!definition) continue;
        for (const decorator of decorated.namedChildren) {
          const call = decorator?.type === 'decorator' ? decorator.namedChildren[0] : undefined;
          if (call?.type !== 'call') continue;
          const callee = call.childForFieldName('function');
          const method = callee?.type === 'attribute' ? callee.childForFieldName('attribute')?.text : undefined;
          const path = stringValue(callArguments(call).positional[0] ?? callArguments(call).keywords.get('path'));
          if (!method || !ROUTE_DECORATOR.test(method) || path === undefined || !path.startsWith('/')) continue;
          routes.push({ module, definition, route: `${method === 'route' ? '' : `${method.toUpperCase()} `}${path}`, parameters: requestParameters(definition) });
        }
      }
      // Route tables: `app.router.add_get("/run", run)`, `Route("/run", run)`, `app.add_url_rule("/run", view_func=run)`.
      if (/\b(add_\w+|Route|web\.(get|post|put|patch|delete))\(/.test(module.file.text ?? '')) {
        for (const call of module.root.descendantsOfType('call')) {
          const callee = call?.childForFieldName('function');
          const name = dottedName(callee)?.split('.').pop();
          if (!call || !name || !ROUTE_TABLE.test(name)) continue;
          const args = callArguments(call);
          const path = stringValue(args.positional[0]);
          const target = args.positional[1] ?? args.keywords.get('view_func') ?? args.keywords.get('endpoint') ?? args.keywords.get('handler');
          if (path === undefined || !path.startsWith('/') || !target) continue;
          const handler = program.resolveFunction(module, target);
          if (handler) routes.push({ module: handler.module, definition: handler.definition, route: path, parameters: requestParameters(handler.definition) });
        }
      }
    }
    // http.server: every do_GET / do_POST … of a BaseHTTPRequestHandler subclass reads the request through `self`.
    for (const [, cls] of module.classes) {
      const bases = cls.childForFieldName('superclasses')?.text ?? '';
      if (!/(BaseHTTPRequestHandler|SimpleHTTPRequestHandler|CGIHTTPRequestHandler)\b/.test(bases)) continue;
      for (const statement of cls.childForFieldName('body')?.namedChildren ?? []) {
        const definition = statement?.type === 'decorated_definition' ? statement.childForFieldName('definition') : statement;
        const name = definition?.type === 'function_definition' ? definition.childForFieldName('name')?.text : undefined;
        if (definition && name && /^do_[A-Z]+$/.test(name)) routes.push({ module, definition, route: `${name.slice(3)} (http.server)`, parameters: new Set(['self']) });
      }
    }
  }
  return routes;
}

/** Whether `name` (as written in `module`) is a framework's global current request. */
export function isGlobalRequest(module: PyModule, name: string): boolean {
  return WEB_REQUEST_OBJECTS.has(qualify(module, name));
}
