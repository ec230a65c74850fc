// Non-dataflow facts for the transport, TLS and obfuscation rules, found in one walk over a file.
import type { FileVisitor } from '../../extract/mcp-sdk.js';
import type { CodeFact, CodeFactKind } from '../../model.js';
import type { AstNode } from './ast.js';
import { locationOf, memberName, objectProperty, propertyName, snippetOf, unwrap, walk } from './ast.js';
import { resolveCallee } from './callee.js';
import type { FileIndex } from './file-index.js';
import { staticString, staticValue } from './file-index.js';

const TRANSPORT_CLASS = /(StreamableHTTP|SSE)ServerTransport$/;
const AUTH_CALLS = /^(requireBearerAuth|bearerAuth|basicAuth|expressjwt|expressJwt|jwtVerify|verifyAccessToken|verifyToken|verifyJwt|authenticate|authMiddleware|requireAuth|checkAuth|validateApiKey|verifyApiKey)$/;
const AUTH_HEADERS = /^(authorization|x-api-key|api-key|x-auth-token|proxy-authorization)$/i;
const ORIGIN_HEADERS = /^(origin|host|referer)$/i;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;

function printableRatio(text: string): number {
  if (!text.length) return 0;
  let printable = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code >= 32 && code < 127) || code === 9 || code === 10 || code === 13) printable++;
  }
  return printable / text.length;
}

/** The text a long encoded literal stands for, when it decodes to mostly printable text (not an image or key material). */
export function decodeBlob(value: string): string | undefined {
  if (value.length < 200) return undefined;
  const compact = value.replace(/\s+/g, '');
  let decoded: string | undefined;
  if (HEX.test(compact)) decoded = Buffer.from(compact, 'hex').toString('latin1');
  else if (BASE64.test(compact) && /[0-9]/.test(compact) && /[A-Z]/.test(compact) && /[a-z]/.test(compact)) {
    decoded = Buffer.from(compact, compact.includes('-') || compact.includes('_') ? 'base64url' : 'base64').toString('latin1');
  }
  return decoded !== undefined && printableRatio(decoded) > 0.9 ? decoded : undefined;
}

function hostDetail(node: AstNode | undefined, index: FileIndex): string {
  const current = unwrap(node);
  if (!current) return 'default';
  const value = staticString(current, index);
  if (value !== undefined) return value;
  // `process.env.HOST ?? '0.0.0.0'`: the fallback is what runs unless someone configures otherwise.
  if (current.type === 'LogicalExpression') return hostDetail(current.right, index);
  return 'dynamic';
}

export function findFacts(index: FileIndex): CodeFact[] {
  const facts: CodeFact[] = [];
  const visitor = factsVisitor(index, facts);
  walk(index.parsed.program, (node) => visitor.enter(node));
  return facts;
}

/**
 * A function that does nothing unless a setting of its object is on: its first statement is
 * `if (!this.enabled) return …` (or `!this.options.enabled`). A header check inside it is switched off by default
 * (the SDK transports' own DNS-rebinding validation before `enableDnsRebindingProtection: true`): only the option
 * that turns it on is a guard, and that option is a fact of its own.
 */
function isSettingGated(fn: AstNode): boolean {
  const body = fn.body;
  if (body?.type !== 'BlockStatement') return false;
  const first = body.body[0];
  if (first?.type !== 'IfStatement' || first.alternate) return false;
  const test = unwrap(first.test);
  if (test?.type !== 'UnaryExpression' || test.operator !== '!') return false;
  let object = unwrap(test.argument);
  while (object?.type === 'MemberExpression') object = unwrap(object.object);
  if (object?.type !== 'ThisExpression') return false;
  const exit = first.consequent.type === 'BlockStatement' ? first.consequent.body[0] : first.consequent;
  return exit?.type === 'ReturnStatement';
}

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

export function factsVisitor(index: FileIndex, facts: CodeFact[]): FileVisitor {
  const parsed = index.parsed;
  // Source ranges of setting-gated functions: the walk enters a function before anything inside it.
  const gated: Array<readonly [number, number]> = [];
  const insideGated = (node: AstNode) => gated.some(([start, end]) => node.start >= start && node.end <= end);
  const add = (kind: CodeFactKind, node: AstNode, detail?: string): void => {
    if ((kind === 'origin-check' || kind === 'auth-middleware') && insideGated(node)) return;
    facts.push({ kind, location: locationOf(parsed, node), snippet: snippetOf(parsed, node), ...(detail !== undefined && { detail }) });
  };
  const isFalse = (node: AstNode | undefined): boolean => {
    const value = staticValue(node, index);
    return value === false || value === 0 || value === '0';
  };

  const enter = (node: AstNode): void => {
    if (FUNCTION_TYPES.has(node.type) && isSettingGated(node)) gated.push([node.start, node.end]);
    switch (node.type) {
      case 'Property': {
        const key = propertyName(node.key, node.computed);
        if ((key === 'rejectUnauthorized' || key === 'strictSSL') && isFalse(node.value)) add('tls-verification-disabled', node, key);
        else if (key === 'NODE_TLS_REJECT_UNAUTHORIZED' && isFalse(node.value)) add('tls-verification-disabled', node, key);
        else if (key === 'connect' && staticValue(objectProperty(unwrap(node.value), 'insecure'), index) === true) add('tls-verification-disabled', node, 'insecure');
        else if (key === 'enableDnsRebindingProtection' && staticValue(node.value, index) === true) add('origin-check', node, key);
        else if ((key === 'allowedHosts' || key === 'allowedOrigins') && unwrap(node.value)?.type !== 'Literal') add('origin-check', node, key);
        else if (key && /^access-control-allow-origin$/i.test(key) && staticString(node.value, index) === '*') add('cors-wildcard', node, '*');
        return;
      }
      case 'AssignmentExpression': {
        const left = unwrap(node.left);
        if (left?.type === 'MemberExpression' && memberName(left) === 'NODE_TLS_REJECT_UNAUTHORIZED' && isFalse(node.right)) {
          add('tls-verification-disabled', node, 'NODE_TLS_REJECT_UNAUTHORIZED');
        }
        return;
      }
      case 'MemberExpression': {
        const object = unwrap(node.object);
        const name = memberName(node);
        if (object?.type === 'MemberExpression' && memberName(object) === 'headers' && name) {
          if (AUTH_HEADERS.test(name)) add('auth-middleware', node, name.toLowerCase());
          else if (ORIGIN_HEADERS.test(name)) add('origin-check', node, name.toLowerCase());
        }
        return;
      }
      case 'Literal': {
        if (typeof node.value === 'string' && node.value.length >= 200) {
          const decoded = decodeBlob(node.value);
          if (decoded !== undefined) add('encoded-blob', node, decoded.slice(0, 200));
        }
        return;
      }
      case 'ImportExpression': {
        if (staticString(node.source, index) === undefined) add('dynamic-require', node, decodedSpecifier(node.source, index));
        return;
      }
      case 'NewExpression': {
        const callee = unwrap(node.callee);
        const name = callee?.type === 'Identifier' ? callee.name : callee?.type === 'MemberExpression' ? memberName(callee) : undefined;
        if (name && TRANSPORT_CLASS.test(name)) add('mcp-http-transport', node, name);
        return;
      }
      case 'CallExpression':
        callFacts(node, index, add);
        return;
      default:
        return;
    }
  };
  return { enter, finish: () => undefined };
}

function decodedSpecifier(node: AstNode | undefined, index: FileIndex): string | undefined {
  let text: string | undefined;
  walk(node as AstNode, (inner) => {
    if (text !== undefined) return false;
    if (inner.type === 'CallExpression') {
      const callee = resolveCallee(inner.callee, index);
      const literal = staticString(inner.arguments[0], index);
      if (literal === undefined) return true;
      if (callee.name === 'atob') text = Buffer.from(literal, 'base64').toString('utf8');
      if (callee.name === 'from' && callee.module === 'global:Buffer') {
        const encoding = staticString(inner.arguments[1], index);
        if (encoding === 'base64' || encoding === 'hex' || encoding === 'base64url') text = Buffer.from(literal, encoding).toString('utf8');
      }
    }
    return true;
  });
  return text?.slice(0, 200);
}

function callFacts(node: AstNode, index: FileIndex, add: (kind: CodeFactKind, node: AstNode, detail?: string) => void): void {
  const calleeNode = unwrap(node.callee);
  if (!calleeNode) return;
  const args: AstNode[] = node.arguments;
  const callee = resolveCallee(calleeNode, index);
  const method = calleeNode.type === 'MemberExpression' ? memberName(calleeNode) : calleeNode.type === 'Identifier' ? calleeNode.name : undefined;
  if (!method) return;

  if (method === 'require' && calleeNode.type === 'Identifier' && args[0] && staticString(args[0], index) === undefined) {
    add('dynamic-require', node, decodedSpecifier(args[0], index));
    return;
  }
  // fastmcp's `server.start({ transportType: 'httpStream' })`; the same key elsewhere (a client's connection record) is
  // not a server.
  if (method === 'start' && calleeNode.type === 'MemberExpression') {
    const transport = staticString(objectProperty(unwrap(args[0]), 'transportType'), index);
    if (transport === 'httpStream' || transport === 'sse') add('mcp-http-transport', node, transport);
    return;
  }
  if (method === 'listen' && calleeNode.type === 'MemberExpression') {
    const first = unwrap(args[0]);
    if (first?.type === 'ObjectExpression') add('http-listen', node, hostDetail(objectProperty(first, 'host'), index));
    else {
      const host = args.slice(1).find((arg) => {
        const value = unwrap(arg);
        return value && value.type !== 'ArrowFunctionExpression' && value.type !== 'FunctionExpression' && !(value.type === 'Identifier' && index.functions.has(value.name));
      });
      add('http-listen', node, hostDetail(host, index));
    }
    return;
  }
  if (method === 'serve' && (callee.module === '@hono/node-server' || callee.display === 'Bun.serve')) {
    const options = unwrap(args[0]);
    add('http-listen', node, hostDetail(objectProperty(options, 'hostname'), index));
    return;
  }
  if (method === 'cors' && (callee.module === 'cors' || callee.module === 'hono/cors' || calleeNode.type === 'Identifier')) {
    const options = unwrap(args[0]);
    if (!options) add('cors-wildcard', node, 'cors()');
    else if (options.type === 'ObjectExpression') {
      const origin = objectProperty(options, 'origin');
      const value = origin ? staticValue(origin, index) : '*';
      if (value === '*' || value === true) add('cors-wildcard', node, String(value));
    }
    return;
  }
  if ((method === 'setHeader' || method === 'header' || method === 'set' || method === 'writeHead') && args.length >= 2) {
    const name = staticString(args[0], index);
    if (name && /^access-control-allow-origin$/i.test(name) && staticString(args[1], index) === '*') add('cors-wildcard', node, '*');
    return;
  }
  // Reading a header takes one argument (`req.get('authorization')`, `c.req.header('origin')`); two arguments set one.
  if ((method === 'get' || method === 'header') && args.length === 1) {
    const name = staticString(args[0], index);
    if (name && AUTH_HEADERS.test(name)) add('auth-middleware', node, name.toLowerCase());
    else if (name && ORIGIN_HEADERS.test(name)) add('origin-check', node, name.toLowerCase());
    return;
  }
  if (AUTH_CALLS.test(method) || (callee.module === 'passport' && method === 'authenticate') || callee.module === 'express-jwt') {
    add('auth-middleware', node, method);
    return;
  }
  if (method === 'hostHeaderValidation' || method === 'localhostHostValidation') add('origin-check', node, method);
}
