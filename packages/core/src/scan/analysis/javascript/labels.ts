// Taint labels of the JS/TS dataflow: where a value came from, how it was combined and which guards it passed.
import type { FlowStep } from '../../model.js';
import { isSecretName } from '../catalog.js';

export type Origin =
  | { kind: 'tool-input'; tool?: string; param?: string }
  | { kind: 'request' | 'request-params' | 'tool-name' }
  /**
   * A request to the package's own HTTP routes. `container`: the request (or a framework's context holding it) itself,
   * of which only the data parts (query, body, params, headers, url …) carry the client's input; `detail` is the
   * expression as written (`req.query.command`).
   */
  | { kind: 'http-request'; detail: string; container: boolean; honoContext?: boolean }
  /** What a server the package talks to answered (`detail` names the call that returned it). */
  | { kind: 'remote-response'; detail: string }
  // One operator-set environment variable (`process.env.API_URL`): never reported, but a URL that starts with it has a
  // host the model cannot choose.
  | { kind: 'config' }
  /**
   * One environment variable named like a credential (`process.env.OPENAI_API_KEY`): configuration everywhere it is
   * meant to go, a finding only where secrets must not be kept, a log line or a tool result (`detail`: the variable).
   */
  | { kind: 'secret'; detail: string }
  /** A parameter of the function being summarised; `RECEIVER` stands for `this` in a class's method. */
  | { kind: 'param'; index: number; path?: string /* properties read from it, joined by FIELD_SEPARATOR */ }
  | { kind: 'env' | 'sensitive-file' | 'decoded-constant' | 'sensitive-path'; detail: string };

export interface Label {
  origin: Origin;
  embedded: boolean;
  sanitizers: readonly string[];
  steps: readonly FlowStep[];
  crossFile: boolean;
  /** The value went through fs.realpath (containment checks on it are symlink-safe). */
  realpath: boolean;
  /** The value was placed after a constant `scheme://host/` prefix. */
  hostFixed: boolean;
  /** The value sits after other text in a string it was built into, so that string cannot start with it (`-x`). */
  prefixed?: boolean;
  /**
   * Whether the value is one path segment: `true` after `encodeURIComponent`, `basename` or a replace that strips
   * every `/` and `\\`; `false` once decoded again (`decodeURIComponent`). Lost when it is embedded in a longer string.
   */
  segment?: boolean;
  /**
   * The property of an object literal (or an instance's field) this value was stored under (`{ baseUrl, apiKey }`):
   * reading another property of that object does not see it. A nested one is a path, outermost first, joined by
   * `FIELD_SEPARATOR` (`this.config` holding `{ clientSecret }`: `config` then `clientSecret`). Each read of a property
   * takes one step off; the object used as a whole keeps it.
   */
  field?: string;
  /**
   * The value is a parsed URL (`new URL(x)`): its parts (`hostname`, `href` …) are that URL for checks and sinks, so
   * `ALLOWED.has(parsed.hostname)` guards a `fetch(parsed)` in a helper as it does in a handler.
   */
  url?: boolean;
}

export type Taint = readonly Label[];

/** The parameter index `this` has in a method's summary: a call site passes its receiver's taint there. */
export const RECEIVER = -1;

/** Whether a label stands for `this` (or one of its fields) in a method's summary. */
export function isReceiver(label: Label): boolean {
  return label.origin.kind === 'param' && label.origin.index === RECEIVER;
}
export const CLEAN: Taint = [];
const MAX_LABELS = 12;
export const MAX_STEPS = 10;

export function union(a: Taint, b: Taint): Taint {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out = a.slice();
  for (const label of b) {
    if (out.length >= MAX_LABELS) break;
    if (!out.includes(label)) out.push(label);
  }
  return out;
}

export function mapTaint(taint: Taint, change: (label: Label) => Label | undefined): Taint {
  if (taint.length === 0) return taint;
  const out: Label[] = [];
  for (const label of taint) {
    const next = change(label);
    if (next) out.push(next);
  }
  return out;
}

export function addStep(taint: Taint, step: FlowStep): Taint {
  return mapTaint(taint, (label) => (label.steps.length >= MAX_STEPS ? label : { ...label, steps: [...label.steps, step] }));
}

export function embed(taint: Taint): Taint {
  return mapTaint(taint, (label) => {
    if (label.embedded && label.segment === undefined) return label;
    // Text around it may hold separators: the longer string is no longer known to be one segment.
    const { segment: _segment, ...rest } = label;
    return { ...rest, embedded: true };
  });
}

/** Marks (or, with `false`, unmarks) the labels as one path segment (see `Label.segment`). */
export function asSegment(taint: Taint, segment: boolean): Taint {
  return mapTaint(taint, (label) => (label.segment === segment ? label : { ...label, segment }));
}

/**
 * A single segment with constant text beside it in the same path segment (`${name}.md`, `'note-' + id`) cannot be `.`
 * or `..`: it names one entry of the folder it is joined to (the shared catalogue's `single-path-segment`).
 */
export function segmentBesideText(taint: Taint): Taint {
  return mapTaint(taint, (label) => (label.segment !== true || label.sanitizers.includes('single-path-segment') ? label : { ...label, sanitizers: [...label.sanitizers, 'single-path-segment'] }));
}

export function sanitize(taint: Taint, sanitizer: string): Taint {
  return mapTaint(taint, (label) => (label.sanitizers.includes(sanitizer) ? label : { ...label, sanitizers: [...label.sanitizers, sanitizer] }));
}

export function newLabel(origin: Origin, steps: FlowStep[] = []): Label {
  return { origin, embedded: false, sanitizers: [], steps, crossFile: false, realpath: false, hostFixed: false };
}

export const CONFIG: Taint = [newLabel({ kind: 'config' })];

/** Holds something that can become a flow (operator configuration alone cannot). */
export function significant(taint: Taint): boolean {
  return taint.some((label) => label.origin.kind !== 'config');
}

/**
 * A credential read from the environment travels through data (assignments, objects, templates, `JSON.stringify`) but
 * not through the result of a call it is handed to: a client built with an API key returns its API's answers, and a
 * truncated or hashed key is no longer the key.
 */
export function withoutSecrets(taint: Taint): Taint {
  return taint.some((label) => label.origin.kind === 'secret') ? mapTaint(taint, (label) => (label.origin.kind === 'secret' ? undefined : label)) : taint;
}

export function prefixed(taint: Taint): Taint {
  return mapTaint(taint, (label) => (label.prefixed ? label : { ...label, prefixed: true }));
}

export function fixHost(taint: Taint): Taint {
  return mapTaint(taint, (label) => (label.hostFixed ? label : { ...label, hostFixed: true }));
}

export function originKey(origin: Origin): string {
  switch (origin.kind) {
    case 'tool-input':
      return `t:${origin.tool ?? ''}:${origin.param ?? ''}`;
    case 'param':
      return `p:${origin.index}:${origin.path ?? ''}`;
    case 'env':
    case 'secret':
    case 'sensitive-file':
    case 'decoded-constant':
    case 'sensitive-path':
    case 'http-request':
    case 'remote-response':
      return `${origin.kind}:${origin.detail}`;
    default:
      return origin.kind;
  }
}

/** The key of the value a label's origin is a part of (`p:0:` for `p:0:href`), when it is a part. */
export function wholeKey(origin: Origin): string | undefined {
  if (origin.kind === 'param' && origin.path !== undefined) return originKey({ kind: 'param', index: origin.index });
  return undefined;
}

/**
 * The parts of a request that carry what the client sent, across Express, Koa, Fastify, Hono, `node:http` and the
 * Web `Request`: properties (`req.query`) and methods (`c.req.query('x')`, `await request.json()`).
 */
const REQUEST_DATA = new Set([
  'query', 'body', 'params', 'param', 'headers', 'header', 'get', 'url', 'originalUrl', 'path', 'pathname', 'search',
  'searchParams', 'href', 'cookies', 'signedCookies', 'hostname', 'rawBody', 'files', 'file', 'form', 'formData', 'json',
  'text', 'arrayBuffer', 'blob', 'valid', 'queries', 'nextUrl',
]);
/** Where a framework keeps the request inside its context: Hono's `c.req`, Koa's `ctx.request`, h3's `event.node.req`. */
const REQUEST_HOLDERS = new Set(['req', 'request', 'raw', 'node', 'incoming']);
/** How long a request expression is shown (`req.body.options.command`) before it is cut. */
const MAX_DETAIL = 60;

/** A request property read: data parts keep the client's input, the rest of the request (its app, user, session) does not. */
function requestMember(label: Label, origin: Extract<Origin, { kind: 'http-request' }>, key: string | undefined): Label | undefined {
  const detail = key === undefined || origin.detail.length >= MAX_DETAIL ? origin.detail : `${origin.detail}.${key}`;
  if (!origin.container) return { ...label, origin: { ...origin, detail } };
  const { honoContext, ...request } = origin;
  // Hono's `c.get('user')` / `c.var.user` read what middleware stored on the context, not what the client sent.
  if (honoContext && (key === 'get' || key === 'var')) return undefined;
  if (key !== undefined && REQUEST_HOLDERS.has(key)) return { ...label, origin: { ...request, detail } };
  if (key !== undefined && REQUEST_DATA.has(key)) return { ...label, origin: { kind: 'http-request', detail, container: false } };
  return undefined;
}

export const FIELD_SEPARATOR = '\u0001';
/** Deeper nesting than this is kept as the outer properties only: coarser, never lost. */
const MAX_FIELD_DEPTH = 4;

/** The property of the object a label's value is stored under (the outermost step of its `field` path). */
export function outerField(field: string): string {
  const separator = field.indexOf(FIELD_SEPARATOR);
  return separator < 0 ? field : field.slice(0, separator);
}

/** The label as stored under property `key` of an object (`{ key: value }`, `this.key = value`). */
export function storedUnder(label: Label, key: string): Label {
  if (label.field === undefined) return { ...label, field: key };
  const path = [key, ...label.field.split(FIELD_SEPARATOR)].slice(0, MAX_FIELD_DEPTH);
  return { ...label, field: path.join(FIELD_SEPARATOR) };
}

/** `member` for each property of a path (a summary's `param` path, see `Origin`). */
export function memberPath(taint: Taint, path: string | undefined): Taint {
  return path === undefined ? taint : path.split(FIELD_SEPARATOR).reduce(member, taint);
}

/** Property access on a tainted value: `args.path` narrows the tool input to one parameter. */
const URL_PARTS = new Set(['href', 'origin', 'protocol', 'host', 'hostname', 'port', 'pathname', 'search', 'hash', 'username', 'password']);

export function member(taint: Taint, key: string | undefined): Taint {
  if (taint.length === 0) return taint;
  if (key === 'length') return CLEAN;
  return mapTaint(taint, (label) => {
    if (label.url && key !== undefined && URL_PARTS.has(key)) return label;
    if (label.field !== undefined) {
      // `{ baseUrl, apiKey }.baseUrl` is the stored value itself; an unknown (computed) key may be any property.
      const outer = outerField(label.field);
      if (key !== undefined && key !== outer) return undefined;
      if (outer.length < label.field.length) return { ...label, field: label.field.slice(outer.length + 1) };
      const { field: _field, ...stored } = label;
      return stored;
    }
    const origin = label.origin;
    switch (origin.kind) {
      case 'tool-input':
        return origin.param === undefined && key !== undefined ? { ...label, origin: { ...origin, param: key } } : label;
      case 'request':
        return key === 'params' ? { ...label, origin: { kind: 'request-params' } } : undefined;
      case 'request-params':
        if (key === 'arguments') return { ...label, origin: { kind: 'tool-input' } };
        if (key === 'name') return { ...label, origin: { kind: 'tool-name' } };
        return undefined;
      case 'tool-name':
        return undefined;
      case 'http-request':
        return requestMember(label, origin, key);
      case 'env':
        // `process.env.X` / `const { X } = process.env`: one named variable, not the environment; a credential by name.
        return key !== undefined && isSecretName(key) ? { ...label, origin: { kind: 'secret', detail: `process.env.${key}` } } : undefined;
      case 'param':
        if (key === undefined) return label;
        if (origin.path === undefined) return { ...label, origin: { ...origin, path: key } };
        // `this.config.port`: an instance's fields are kept as deep as `field` paths are (`storedUnder`), so the path
        // into `this` goes as deep. A parameter keeps its first property, which is what tool arguments need.
        if (origin.index !== RECEIVER || origin.path.split(FIELD_SEPARATOR).length >= MAX_FIELD_DEPTH) return label;
        return { ...label, origin: { ...origin, path: `${origin.path}${FIELD_SEPARATOR}${key}` } };
      default:
        return label;
    }
  });
}

/** Whether any label is a whole request object (its methods may read the client's data). */
export function holdsRequest(taint: Taint): boolean {
  return taint.some((label) => label.origin.kind === 'http-request' && label.origin.container);
}
