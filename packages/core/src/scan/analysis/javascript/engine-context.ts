// What the JS/TS taint pass shares between its layers (functions.ts → guard-detection.ts → statements.ts →
// expressions.ts → taint.ts): the analysis context of a function body, sink sites, summaries, and the small
// predicates more than one layer uses.
import type { FlowStep, TaintFlow, ToolDefinition } from '../../model.js';
import type { Reach } from '../capabilities.js';
import type { AstNode } from './ast.js';
import { offsetsOf, unwrap, wordsPattern } from './ast.js';
import type { RequestHandler } from './http.js';
import { exportedRequestHandlers } from './http.js';
import type { Instance } from './classes.js';
import type { Label, Taint } from './labels.js';
import type { FileContext, Scope } from './scope.js';

export const FUNCTION_BUDGET = 25_000;

/** A sink as the report describes it (`TaintFlow['sink']`), plus what the pass needs to judge the value reaching it. */
export type SinkSite = TaintFlow['sink'] & {
  isUrl: boolean;
  sanitizers: readonly string[];
  embeds?: boolean;
};

/** A recognised check: the sanitizer it stands for, and for a check that does not hold, where it is (shown in the flow). */
export interface Guard {
  name: string;
  step?: FlowStep;
}

export interface Summary {
  sinks: Array<{ param: number; path?: string; site: SinkSite; label: Label }>;
  returns: Label[];
  /**
   * Environment or credentials the function sends as a JSON-RPC result (`answered` in functions.ts) when nothing says
   * it answers a tool call: a tool's result wherever a dispatcher calls it.
   */
  answers: Array<{ site: SinkSite; label: Label }>;
  /** What the function and its callees can do, whatever their arguments (see capabilities.ts). */
  reach: Reach;
  /** A constructor's: what each `this.<field> = …` stores, in terms of its parameters (see `instanceContent`). */
  fields?: Map<string, Label[]>;
}

const siteIds = new WeakMap<SinkSite, number>();
let nextSiteId = 0;
const summarySinkKeys = new WeakMap<Summary, Set<string>>();

/**
 * Adds a parameter-to-sink entry to a summary unless it holds one that differs only in the steps that led there. A
 * function that calls a helper ten times would otherwise hold the helper's sinks ten times over, and its callers a
 * hundred (34,000 entries in one bundle's summary): the copies can change no flow, since a flow keeps the steps of
 * its first path and differs by everything else a label holds, which the key keeps.
 */
export function addSummarySink(summary: Summary, entry: Summary['sinks'][number]): void {
  let site = siteIds.get(entry.site);
  if (site === undefined) siteIds.set(entry.site, (site = nextSiteId++));
  const { label } = entry;
  const key = [
    site, entry.param, entry.path, label.embedded, [...label.sanitizers].sort().join(','), label.crossFile, label.realpath, label.hostFixed,
    label.prefixed, label.segment, label.field, label.url,
  ].join('|');
  let keys = summarySinkKeys.get(summary);
  if (!keys) summarySinkKeys.set(summary, (keys = new Set()));
  if (keys.has(key)) return;
  keys.add(key);
  summary.sinks.push(entry);
}

/**
 * Text that may start a non-tool origin inside a function: the whole environment, home-directory credential paths,
 * run-time decoding. A function without any of these (and without a handler inside) analysed with clean inputs cannot
 * produce a flow, so the pass skips it; in bundles that is most of the inlined third-party code.
 */
const SOURCE_WORDS = wordsPattern([
  'process.env', 'homedir', 'HOME', 'USERPROFILE', '.ssh', 'id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', '.aws', 'gcloud',
  'npmrc', 'pypirc', 'git-credentials', 'netrc', '.docker', '.kube', '.env', 'eychain', 'Cookies', 'Login Data',
  'Local State', 'Chrome', 'Firefox', 'mozilla', 'Brave', '_history', 'pgpass', 'wallet', 'gnupg', 'solana', 'base64',
  'hex', 'atob', 'fromCharCode', 'fromCodePoint', 'reverse()', 'createServer', 'serve(', 'callTool', 'readResource', 'getPrompt', 'redirectToAuthorization',
  'discoverOAuth', 'discoverAuthorization', 'startAuthorization',
]);
/**
 * The words above, and route registrations (`app.get('/x', …)`, `server.on('request', …)`) where request handlers
 * hide inside other functions: one pass over the text.
 */
const SOURCE_HINTS = new RegExp(`${SOURCE_WORDS.source}|\\.(?:get|post|put|patch|delete|all|options|head|use|route)\\(\\s*['"\`]\\/|\\.on\\(\\s*['"]request['"]`, 'g');

export interface Ctx {
  file: FileContext;
  scope: Scope;
  /** Origin key → guards seen so far. Copied on first write, so a callee never leaks guards to its caller. */
  guards: Map<string, readonly Guard[]>;
  ownGuards: boolean;
  returns: Label[];
  currentTool?: string;
  /** In a tool handler's own body (not in functions nested in it): its return value is the tool's result. */
  toolResult?: { tool?: string };
  /**
   * Answering a tool call: in a tool handler or dispatcher, and in the callbacks and helpers it runs in place (given
   * the request). A JSON-RPC response built here is the tool's result (`answered` in functions.ts).
   */
  answering?: { tool?: string };
  /** The class `this` is an instance of (in its methods and the arrow functions inside them). */
  self?: Instance;
  /**
   * What `this` holds: in a method's summary, the receiver parameter (`RECEIVER`), so `this.host` reads what the call
   * site's instance was built from; inherited by the arrow functions inside the method.
   */
  receiver?: Taint;
  summary?: Summary;
  budget: { left: number };
  /** Inside a handler, a summary or a function called with tainted arguments: nothing may be skipped. */
  live: boolean;
  /** Inside a branch only an operator's off-by-default switch opens (guards.ts `operatorSwitch`). */
  operatorSwitch?: string;
  /** Where the capabilities of this body go: its tool's, or the summary's of the function being summarised. */
  reach?: Reach;
}

/** A constant `scheme://host/` (path, query or fragment must follow) at the start of a URL: the host is not the model's choice. */
export function hasFixedHost(prefix: string | undefined): boolean {
  return prefix !== undefined && /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+[/?#]/i.test(prefix);
}

export const SENSITIVE_PATH =
  /(^|[/\\])\.ssh([/\\]|$)|id_(rsa|dsa|ecdsa|ed25519)|\.aws[/\\]|\.aws$|\.config[/\\]gcloud|(^|[/\\])\.env(\.[a-z]+)?$|\.npmrc|\.pypirc|\.git-credentials|\.netrc|\.docker[/\\]config\.json|\.kube[/\\]config|Keychains|\.keychain|Login Data|Cookies$|Local State|[/\\]Google[/\\]Chrome|[/\\]\.mozilla|Firefox[/\\]Profiles|BraveSoftware|\.bash_history|\.zsh_history|\.pgpass|wallet\.dat|\.gnupg|solana[/\\]id\.json/i;

export interface TaintOptions {
  files: Map<string, FileContext>;
  tools: readonly ToolDefinition[];
}

export function fileHints(file: FileContext): number[] {
  const hints = offsetsOf(file.index.parsed.text, SOURCE_HINTS);
  for (const fn of exportedHandlersOf(file).keys()) hints.push(fn.start);
  const path = file.index.parsed.file.path;
  for (const handler of file.handlers.values()) if (handler.tool.handlerId?.startsWith(`${path}:`)) hints.push(handler.node.start);
  for (const dispatcher of file.dispatchers) hints.push(dispatcher.start);
  return hints.sort((a, b) => a - b);
}

export function exportedHandlersOf(file: FileContext): Map<AstNode, RequestHandler> {
  file.exportedHandlers ??= new Map(exportedRequestHandlers(file.index).map((handler) => [handler.fn, handler]));
  return file.exportedHandlers;
}

export function rootIdentifier(node: AstNode): string | undefined {
  let current = unwrap(node);
  while (current?.type === 'MemberExpression') current = unwrap(current.object);
  return current?.type === 'Identifier' ? current.name : undefined;
}

export function isHostish(node: AstNode, ctx: Ctx): boolean {
  const text = ctx.file.index.parsed.text.slice(node.start, node.end);
  return /host|origin|domain|url/i.test(text);
}
