import { argvElementGuard, classifyArgv, INSTANCE_COMMAND_SINKS, isOptionSensitive, linkPreviewsOn, LOG_METHODS, LOGGER_NAME, OPENER_PACKAGES, programName, type ArgvRole } from '../catalog.js';
import type { SinkKind } from '../../model.js';
import type { AstNode } from './ast.js';
import { objectProperty, propertyName, unwrap } from './ast.js';
import type { Callee } from './callee.js';
import type { FileIndex } from './file-index.js';
import { staticString, staticValue } from './file-index.js';
import { isWrittenJsonRpcResponse } from '../../extract/json-rpc.js';

/** One argument of a call that is dangerous when tainted. */
export interface SinkArgument {
  kind: SinkKind;
  node: AstNode;
  shell?: boolean;
  /** What an argv element is to the program (command sinks given an argv array). */
  role?: ArgvRole;
  /** The program, when it is a constant. */
  program?: string;
  /** The argument becomes one part of a longer command line (an argv element joined for `shell: true`). */
  embeds?: boolean;
  /** A message body posted where the service previews its links (see catalog.ts `linkPreviewsOn`). */
  linkPreviews?: boolean;
  /** Guards implied by the call shape itself (e.g. argv arrays without a shell). */
  sanitizers?: string[];
  /** The URL/host argument of a network call (fixed-host applies only here). */
  isUrl?: boolean;
  target?: string;
}

const FS_READ = new Set([
  'readFile', 'readFileSync', 'createReadStream', 'readdir', 'readdirSync', 'stat', 'statSync', 'lstat', 'lstatSync',
  'opendir', 'opendirSync', 'readJson', 'readJSON', 'readJsonSync', 'readJSONSync', 'access', 'accessSync', 'readlink',
]);
const FS_WRITE_FIRST = new Set([
  'writeFile', 'writeFileSync', 'appendFile', 'appendFileSync', 'createWriteStream', 'unlink', 'unlinkSync', 'rm', 'rmSync',
  'rmdir', 'rmdirSync', 'mkdir', 'mkdirSync', 'truncate', 'truncateSync', 'chmod', 'chmodSync', 'outputFile',
  'outputFileSync', 'writeJson', 'writeJSON', 'writeJsonSync', 'outputJson', 'remove', 'removeSync', 'emptyDir', 'ensureDir',
  'ensureFile', 'mkdirp', 'mkdirs',
]);
const FS_WRITE_TWO = new Set(['rename', 'renameSync', 'copyFile', 'copyFileSync', 'cp', 'cpSync', 'copy', 'copySync', 'move', 'moveSync', 'symlink', 'symlinkSync', 'link']);

const SQL_METHODS = new Set(['query', 'raw', 'unsafe', 'prepare', '$queryRaw', '$executeRaw', '$queryRawUnsafe', '$executeRawUnsafe', 'queryRaw', 'whereRaw']);
/** `.execute`/`.exec`/`.run`/`.all` are SQL only on something named like a database handle (RegExp#exec, tool.execute …). */
const SQL_HANDLE_METHODS = new Set(['execute', 'exec', 'run', 'all', 'each']);
const DB_HANDLE = /(^|[._])(db|database|sqlite|sql|conn|connection|pool|knex|sequelize|pg|mysql|sqlClient|dbClient)\d*$/i;

const AXIOS_BODY = new Set(['post', 'put', 'patch']);
const AXIOS_URL_ONLY = new Set(['get', 'delete', 'head', 'options']);

function literalUrl(node: AstNode | undefined, index: FileIndex): string | undefined {
  const current = unwrap(node);
  if (!current) return undefined;
  const whole = staticString(current, index);
  if (whole !== undefined) return whole;
  if (current.type === 'NewExpression' && unwrap(current.callee)?.name === 'URL') {
    return literalUrl(current.arguments[0], index);
  }
  return staticPrefix(current, index);
}

/** The constant leading text of a template/concatenation: `https://api.github.com/repos/` of `${BASE}/repos/${x}`. */
export function staticPrefix(node: AstNode | undefined, index: FileIndex): string | undefined {
  const current = unwrap(node);
  if (!current) return undefined;
  if (current.type === 'TemplateLiteral') {
    let text = current.quasis[0]?.value.cooked ?? '';
    for (let i = 0; i < current.expressions.length; i++) {
      const part = staticString(current.expressions[i], index);
      if (part === undefined) return text || undefined;
      text += part + (current.quasis[i + 1]?.value.cooked ?? '');
    }
    return text;
  }
  if (current.type === 'BinaryExpression' && current.operator === '+') {
    const left = staticString(current.left, index);
    if (left === undefined) return staticPrefix(current.left, index);
    const right = staticPrefix(current.right, index);
    return left + (right ?? '');
  }
  return staticString(current, index);
}

function optionsHaveShell(node: AstNode | undefined, index: FileIndex): boolean {
  const value = objectProperty(unwrap(node), 'shell');
  if (!value) return false;
  const resolved = staticValue(value, index);
  return resolved === undefined ? true : Boolean(resolved);
}

/**
 * Process APIs that take a program and an argv array. The program is never safe to choose. Without a shell, each
 * element of a literal argv is classified by what the program does with it (shared catalog): shell code for
 * `sh -c`, `ssh host`, `adb shell`; the OS opener's target; an option position of a tool like git or kubectl; or a
 * plain operand, which is safe. With `shell: true` every element is joined into one command line.
 */
function argvCall(args: AstNode[], index: FileIndex, textOf: TextOf): SinkArgument[] {
  const [program, second, third] = args;
  if (!program) return [];
  const secondNode = unwrap(second);
  const argv = secondNode?.type === 'ArrayExpression' || (secondNode && secondNode.type !== 'ObjectExpression') ? secondNode : undefined;
  const options = argv ? third : second;
  const shell = optionsHaveShell(options, index);
  const programText = textOf(program);
  const named = programText === undefined ? {} : { program: programName(programText) };
  const sinks: SinkArgument[] = [{ kind: 'command', node: program, shell, role: 'program', ...named }];
  if (!argv) return sinks;
  if (argv.type !== 'ArrayExpression') {
    // A list built elsewhere (`args.push(x)`): for a tool whose options are dangerous, any element may stand where an
    // option can; the guards its elements picked up when they were added (`--` before, a constant start) say otherwise.
    const optionRisk = !shell && programText !== undefined && isOptionSensitive(programText);
    const how: Partial<SinkArgument> = shell ? { embeds: true, role: 'shell-code' } : optionRisk ? { role: 'option' } : { sanitizers: ['execFile-argv'] };
    sinks.push({ kind: 'command', node: argv, shell, ...named, ...how });
    return sinks;
  }
  const elements = (argv.elements as Array<AstNode | null>).map((element) => (element?.type === 'SpreadElement' ? element.argument : element));
  const texts = [programText, ...elements.map((element) => (element ? textOf(element) : undefined))];
  const roles = classifyArgv(texts);
  elements.forEach((element, position) => {
    if (!element) return;
    if (shell) {
      sinks.push({ kind: 'command', node: element, shell, role: 'shell-code', embeds: true, ...named });
      return;
    }
    const role = roles[position + 1] ?? 'operand';
    sinks.push({ kind: 'command', node: element, shell: role === 'shell-code', role, ...named, ...placeSanitizers(texts, position + 1, role) });
  });
  return sinks;
}

/**
 * What the place of an element of a literal argv (`texts[0]` the program) proves: a plain operand cannot start another
 * command without a shell; in an option position, the value of the option before it is not read as an option.
 */
function placeSanitizers(texts: readonly (string | undefined)[], position: number, role: ArgvRole): Pick<SinkArgument, 'sanitizers'> {
  if (role === 'operand') return { sanitizers: ['execFile-argv'] };
  const guard = role === 'option' ? argvElementGuard(texts.slice(0, position), undefined) : undefined;
  return guard === undefined ? {} : { sanitizers: [guard] };
}

function networkOptions(options: AstNode | undefined, bodyKeys: readonly string[]): SinkArgument[] {
  const object = unwrap(options);
  if (object?.type !== 'ObjectExpression') return [];
  const sinks: SinkArgument[] = [];
  for (const key of bodyKeys) {
    const value = objectProperty(object, key);
    if (value) sinks.push({ kind: 'network-send', node: value });
  }
  return sinks;
}

function withTarget(sinks: SinkArgument[], url: AstNode | undefined, index: FileIndex): SinkArgument[] {
  const target = literalUrl(url, index);
  if (target !== undefined) for (const sink of sinks) sink.target = target;
  // The message text of a post whose links the service previews is a sink of its own.
  const previewed: SinkArgument[] = [];
  for (const sink of sinks) {
    const body = sink.kind === 'network-send' ? bodyObject(sink.node) : undefined;
    if (!body || !linkPreviewsOn(target, objectKeys(body))) continue;
    for (const field of MESSAGE_FIELDS) {
      const text = objectProperty(body, field);
      if (text) previewed.push({ kind: 'network-send', node: text, linkPreviews: true, ...(target !== undefined && { target }) });
    }
  }
  return [...sinks, ...previewed];
}

/** Fields of a chat message that carry what readers see (and links the service previews). */
const MESSAGE_FIELDS = ['text', 'content', 'blocks', 'attachments', 'embeds', 'caption', 'message'];

/** A request body written as an object literal (also inside `JSON.stringify({...})`). */
function bodyObject(node: AstNode | undefined): AstNode | undefined {
  let current = unwrap(node);
  if (current?.type === 'CallExpression' && current.arguments.length > 0) current = unwrap(current.arguments[0]);
  return current?.type === 'ObjectExpression' ? current : undefined;
}

function objectKeys(object: AstNode): string[] {
  return object.properties.flatMap((property: AstNode) => {
    const key = property.type === 'Property' ? propertyName(property.key, property.computed) : undefined;
    return key === undefined ? [] : [key];
  });
}

const FETCH_BODY = ['body'];
const GOT_BODY = ['body', 'json', 'form'];
const AXIOS_CONFIG_BODY = ['data', 'params'];

/** Fields of a mail message, in any client's spelling (nodemailer, Postmark, SendGrid, Resend, Mailgun, SES). */
const MAIL_RECIPIENT = /^(to|cc|bcc|toaddresses|ccaddresses|bccaddresses|replyto|reply_to|replytoaddresses)$/i;
const MAIL_HIDDEN = /^(bcc|bccaddresses)$/i;
const MAIL_CONTENT = /^(subject|text|html|textbody|htmlbody|attachments|content|data|body|message)$/i;
const MAIL_NESTING = /^(destination|personalizations|message|content|body)$/i;

/**
 * The parts of a mail message that are sinks, whatever the client's layout: its recipients and its content. A
 * constant hidden (bcc) recipient anywhere in the message, or a constant copy recipient, becomes the sinks' target,
 * so a tool that quietly copies every message to a fixed address is visible (the postmark-mcp incident).
 */
function emailSinks(message: AstNode | undefined, index: FileIndex): SinkArgument[] {
  const object = unwrap(message);
  if (object?.type !== 'ObjectExpression') return message ? [{ kind: 'email', node: message }] : [];
  const nodes: AstNode[] = [];
  let hidden: string | undefined;
  let copied: string | undefined;
  const visit = (current: AstNode | undefined, depth: number): void => {
    if (current?.type === 'ArrayExpression' && depth < 4) {
      for (const element of current.elements) visit(unwrap(element), depth + 1);
      return;
    }
    if (current?.type !== 'ObjectExpression' || depth > 3) return;
    for (const property of current.properties) {
      if (property.type === 'SpreadElement') {
        nodes.push(property.argument);
        continue;
      }
      const key = propertyName(property.key, property.computed) ?? '';
      const value = unwrap(property.value);
      if (MAIL_RECIPIENT.test(key)) {
        const constant = staticValue(value, index);
        const text = Array.isArray(constant) ? constant.filter((item) => typeof item === 'string').join(', ') : typeof constant === 'string' ? constant : undefined;
        if (text && MAIL_HIDDEN.test(key)) hidden ??= text;
        else if (text && /^(cc|ccaddresses)$/i.test(key)) copied ??= text;
        nodes.push(property.value);
      } else if (MAIL_NESTING.test(key) && (value?.type === 'ObjectExpression' || value?.type === 'ArrayExpression')) {
        visit(value, depth + 1);
      } else if (MAIL_CONTENT.test(key)) {
        nodes.push(property.value);
      }
    }
  };
  visit(object, 0);
  const target = hidden !== undefined ? `bcc: ${hidden}` : copied;
  return nodes.map((node) => ({ kind: 'email' as const, node, ...(target !== undefined && { target }) }));
}

/** Which argument of a call is a mail message, by the shapes mail clients share. */
function mailMessage(callee: Callee, call: AstNode): AstNode | undefined {
  const args: AstNode[] = call.arguments;
  const { name, module } = callee;
  if (call.type === 'NewExpression') return /^Send(Raw|Bulk)?EmailCommand$/.test(name) ? args[0] : undefined;
  if (name === 'sendMail' || name === 'sendEmail' || name === 'sendEmailWithTemplate' || name === 'sendEmailBatch') return args[0];
  if (module === '@sendgrid/mail' && (name === 'send' || name === 'sendMultiple')) return args[0];
  const display = callee.display;
  if (/(^|\.)emails\.(send|create)$/.test(display)) return args[0];
  if (/(^|\.)messages\.create$/.test(display) && args.length >= 2) return args[1];
  return undefined;
}

/** Methods that allocate as much as their first argument asks: `'-'.repeat(n)`, `s.padEnd(n)`. */
const SIZE_METHODS = new Set(['repeat', 'padStart', 'padEnd']);
/** Constructors whose numeric argument is a length: `new Array(n)`, `new Uint8Array(n)`, `new ArrayBuffer(n)`. */
const SIZED_CONSTRUCTORS = /^(Array|ArrayBuffer|SharedArrayBuffer|(Big)?(U?Int|Float)(8|16|32|64)(Clamped)?Array)$/;

/**
 * Sizes and patterns that cost memory or time in proportion to a value (CWE-400, CWE-1333): the count of `repeat`,
 * a buffer or array length, `Array.from({ length })`, and the text of a `RegExp`.
 */
function resourceSinks(callee: Callee, call: AstNode): SinkArgument[] {
  const first: AstNode | undefined = call.arguments[0];
  if (!first) return [];
  const { module, name } = callee;
  if (module === undefined && !callee.receiver && name === 'RegExp') return [{ kind: 'regex', node: first }];
  if (module === undefined && !callee.receiver && call.type === 'NewExpression' && SIZED_CONSTRUCTORS.test(name)) return [{ kind: 'allocation', node: first }];
  if (module === 'global:Buffer' && /^alloc(Unsafe)?(Slow)?$/.test(name)) return [{ kind: 'allocation', node: first }];
  if (module === 'global:Array' && name === 'from') {
    const length = objectProperty(unwrap(first), 'length');
    return length ? [{ kind: 'allocation', node: length }] : [];
  }
  if (module === undefined && callee.receiver && SIZE_METHODS.has(name)) return [{ kind: 'allocation', node: first }];
  return [];
}

/** `s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')`: every regex metacharacter escaped, the idiomatic `escapeRegExp`. */
export function escapesRegexSyntax(pattern: AstNode | undefined, replacement: AstNode | undefined): boolean {
  const regex = unwrap(pattern)?.regex as { pattern: string; flags: string } | undefined;
  const text = unwrap(replacement)?.value;
  return regex !== undefined && regex.flags.includes('g') && typeof text === 'string' && text.includes('$&') && /^\[[^^]/.test(regex.pattern) && ['*', '+', '?', '(', '|'].every((char) => regex.pattern.includes(char));
}

/** `console.error(…)`, `logger.info(…)`, `this.log.warn(…)`: a level method on something named like a logger. */
function isLogCall(callee: Callee): boolean {
  if (!LOG_METHODS.has(callee.name)) return false;
  const receiver = callee.display.split('.').at(-2);
  return receiver !== undefined && LOGGER_NAME.test(receiver);
}

/** The text of an expression when it is a constant (module constants, and locals the dataflow knows). */
export type TextOf = (node: AstNode | undefined) => string | undefined;

/** The dangerous arguments of a call (or `new`) expression, by what the callee resolves to. */
export function sinkArguments(callee: Callee, call: AstNode, index: FileIndex, textOf: TextOf = (node) => staticString(node, index)): SinkArgument[] {
  const message = mailMessage(callee, call);
  if (message) return emailSinks(message, index);
  if (isLogCall(callee)) {
    // `console.log(JSON.stringify({ jsonrpc: '2.0', id, result }))` is a stdio server answering on stdout, not a log:
    // the response's result is the tool's (see `answered` in functions.ts).
    const logged = (call.arguments as AstNode[]).filter((node) => !isWrittenJsonRpcResponse(node, index));
    return logged.map((node) => ({ kind: 'log' as const, node }));
  }
  const args: AstNode[] = call.arguments;
  const isNew = call.type === 'NewExpression';
  const { module, name } = callee;
  const first = args[0];
  switch (module) {
    case 'child_process':
      if (name === 'exec' || name === 'execSync') return first ? [{ kind: 'command', node: first, shell: true }] : [];
      if (['spawn', 'spawnSync', 'execFile', 'execFileSync', 'fork'].includes(name)) return argvCall(args, index, textOf);
      return [];
    case 'cross-spawn':
      return name === 'default' || name === 'spawn' || name === 'sync' ? argvCall(args, index, textOf) : [];
    case 'execa':
      if (name === 'execaCommand' || name === 'execaCommandSync') return first ? [{ kind: 'command', node: first, shell: optionsHaveShell(args[1], index) }] : [];
      if (name === 'execa' || name === 'execaSync' || name === 'default' || name === 'execaNode') return argvCall(args, index, textOf);
      return [];
    case 'open':
    case 'opn':
    case 'better-opn':
    case 'openurl':
    case 'open-url':
    case 'opener':
      // The OS opener: on Windows `cmd /c start` or PowerShell re-parse the string (CVE-2025-6514).
      return OPENER_PACKAGES.has(module) && first && (name === 'default' || name === 'open' || name === module) ? [{ kind: 'command', node: first, role: 'os-open', program: module }] : [];
    case 'shelljs':
      return name === 'exec' && first ? [{ kind: 'command', node: first, shell: true }] : [];
    case 'vm':
      if (['runInNewContext', 'runInThisContext', 'runInContext', 'compileFunction', 'Script', 'SourceTextModule'].includes(name)) {
        return first ? [{ kind: 'code', node: first }] : [];
      }
      return [];
    case 'fs':
      if (FS_READ.has(name)) return first ? [{ kind: 'file-read', node: first }] : [];
      if (FS_WRITE_FIRST.has(name)) return first ? [{ kind: 'file-write', node: first }] : [];
      if (FS_WRITE_TWO.has(name)) return args.slice(0, 2).map((node) => ({ kind: 'file-write' as const, node }));
      return [];
    case 'fetch':
    case 'undici':
      if (name === 'default' || name === 'fetch' || name === 'request' || name === 'stream') {
        return first ? withTarget([{ kind: 'network', node: first, isUrl: true }, ...networkOptions(args[1], FETCH_BODY)], first, index) : [];
      }
      return [];
    case 'axios':
      if (name === 'default' || name === 'request') {
        const config = unwrap(first);
        if (config?.type === 'ObjectExpression') {
          const url = objectProperty(config, 'url') ?? objectProperty(config, 'baseURL');
          const sinks: SinkArgument[] = url ? [{ kind: 'network', node: url, isUrl: true }] : [];
          return withTarget([...sinks, ...networkOptions(config, AXIOS_CONFIG_BODY)], url, index);
        }
        return first ? withTarget([{ kind: 'network', node: first, isUrl: true }, ...networkOptions(args[1], AXIOS_CONFIG_BODY)], first, index) : [];
      }
      if (AXIOS_BODY.has(name) || AXIOS_URL_ONLY.has(name)) {
        const sinks: SinkArgument[] = first ? [{ kind: 'network', node: first, isUrl: true }] : [];
        if (AXIOS_BODY.has(name) && args[1]) sinks.push({ kind: 'network-send', node: args[1] });
        return withTarget(sinks, first, index);
      }
      return [];
    case 'got':
      if (name === 'default' || AXIOS_BODY.has(name) || AXIOS_URL_ONLY.has(name)) {
        return first ? withTarget([{ kind: 'network', node: first, isUrl: true }, ...networkOptions(args[1], GOT_BODY)], first, index) : [];
      }
      return [];
    case 'http':
      if (name === 'request' || name === 'get') {
        const options = unwrap(first);
        if (options?.type === 'ObjectExpression') {
          const host = objectProperty(options, 'hostname') ?? objectProperty(options, 'host');
          return host ? withTarget([{ kind: 'network', node: host, isUrl: true }], host, index) : [];
        }
        return first ? withTarget([{ kind: 'network', node: first, isUrl: true }], first, index) : [];
      }
      return [];
    default:
      break;
  }
  // The MCP SDK's client transports: stdio spawns `command` with `args`, the HTTP ones connect to their URL.
  if (module !== undefined && isNew && /modelcontextprotocol\/(sdk\/client|client)/.test(module)) {
    if (name === 'StdioClientTransport') {
      const options = unwrap(first);
      const command = objectProperty(options, 'command');
      const argv = objectProperty(options, 'args');
      const sinks: SinkArgument[] = command ? [{ kind: 'command', node: command, role: 'program' }] : [];
      if (argv) sinks.push({ kind: 'command', node: argv, role: 'operand', sanitizers: ['execFile-argv'] });
      return sinks;
    }
    if ((name === 'SSEClientTransport' || name === 'StreamableHTTPClientTransport' || name === 'WebSocketClientTransport') && first) {
      return withTarget([{ kind: 'network', node: first, isUrl: true }], first, index);
    }
  }
  if (module === undefined || module.startsWith('global:')) {
    // Globals and methods on values whose origin is unknown.
    if (!callee.receiver) {
      if (name === 'eval' || name === 'Function') return args.map((node) => ({ kind: 'code' as const, node }));
      if ((name === 'setTimeout' || name === 'setInterval') && first) {
        const value = unwrap(first);
        const isCallback = value?.type === 'ArrowFunctionExpression' || value?.type === 'FunctionExpression';
        return isCallback ? [] : [{ kind: 'code', node: first }];
      }
      if (name === 'require' && first && unwrap(first)?.type !== 'Literal') return [{ kind: 'code', node: first }];
      if (name === 'RegExp' || SIZED_CONSTRUCTORS.test(name)) return resourceSinks(callee, call);
      if (name === 'fetch' && !isNew) {
        return first ? withTarget([{ kind: 'network', node: first, isUrl: true }, ...networkOptions(args[1], FETCH_BODY)], first, index) : [];
      }
      return [];
    }
    const resource = resourceSinks(callee, call);
    if (resource.length) return resource;
    const receiverName = callee.display.slice(0, Math.max(0, callee.display.lastIndexOf('.')));
    if (first && (SQL_METHODS.has(name) || (SQL_HANDLE_METHODS.has(name) && DB_HANDLE.test(receiverName)))) {
      // `req.query` is not a call, `URLSearchParams#get` takes a key: keep SQL to calls whose first argument is a string.
      // Bound values reach the statement too, safely for injection: kept so rules can see whose rows a query is about.
      const bound = args.slice(1).map((node) => ({ kind: 'sql' as const, node, sanitizers: ['parameterised-sql'] }));
      return [{ kind: 'sql', node: first }, ...bound];
    }
  }
  return [];
}

/**
 * The dangerous arguments of a method called on an instance of a library class (see catalog.ts
 * `INSTANCE_COMMAND_SINKS`). The command is an argv whose first element is the program: a literal list is classified
 * element by element like a spawn argv; a list built elsewhere carries its program, so it is the program.
 */
export function instanceSinks(module: string, className: string, method: string, call: AstNode, textOf: TextOf): SinkArgument[] {
  const entry = INSTANCE_COMMAND_SINKS.find((sink) => sink.module === module && sink.className === className && sink.method === method);
  const argument = entry && unwrap(call.arguments[entry.argument]);
  const command = entry?.property === undefined ? argument : unwrap(objectProperty(argument, entry.property));
  if (!command) return [];
  if (command.type !== 'ArrayExpression') return [{ kind: 'command', node: command, shell: false, role: 'program' }];
  const elements = (command.elements as Array<AstNode | null>).map((element) => (element?.type === 'SpreadElement' ? element.argument : element));
  const texts = elements.map((element) => (element ? textOf(element) : undefined));
  const roles = classifyArgv(texts);
  const named = texts[0] === undefined ? {} : { program: programName(texts[0]) };
  return elements.flatMap((element, position): SinkArgument[] => {
    const role = roles[position] ?? 'operand';
    if (!element) return [];
    return [{ kind: 'command', node: element, shell: role === 'shell-code', role, ...named, ...placeSanitizers(texts, position, role) }];
  });
}
