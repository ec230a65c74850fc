// Sinks: the calls where a value does harm (commands, code, deserialisation, files, SQL, network, mail), and the
// origins a call itself produces (a decoded constant).
import { inflateSync, gunzipSync } from 'node:zlib';
import type { SinkKind } from '../../model.js';
import {
  ALLOCATION_CALLS,
  CODE_CALLS,
  OPENER_CALLS,
  COMMAND_ARGV,
  COMMAND_SHELL,
  COMMAND_SUBPROCESS,
  DECODERS,
  DESERIALIZE_CALLS,
  FILE_COPY_CALLS,
  FILE_MOVE_CALLS,
  FILE_READ_CALLS,
  FILE_WRITE_CALLS,
  HTTP_CLIENT_TYPES,
  HTTP_METHODS,
  NETWORK_TOOLS,
  OPEN_CALLS,
  PATH_READ_METHODS,
  PATH_WRITE_METHODS,
  PAYLOAD_KEYWORDS,
  REGEX_CALLS,
  SAFE_YAML_LOADER,
  SQL_CALLS,
  SQL_METHODS,
  YAML_LOAD,
} from './catalog.js';
import { LOG_METHODS, LOGGER_NAME } from '../catalog.js';
import { qualify } from './program.js';
import { shownDecoded } from '../decode.js';
import { decodePython } from './decoder.js';
import { GuardScope } from './guards.js';
import { callArguments, dottedName, location, snippet, stringValue, type CallArguments, type Node } from './syntax.js';
import { addCapability, atCall, envCapability, sinkCapabilities, URL_PARAMS, type Reach, type SinkFacts } from '../capabilities.js';
import { baseIdentifier, derive, fixedHostOf, placeInArgv, union, type SinkInfo, type Taint } from './values.js';

/** Calls and methods whose result may be a decoded payload (the evaluator is asked only there). */
const DECODING_ENTRIES = /^(base64\.|binascii\.|codecs\.|bytes\.fromhex$|bytes$|bytearray$|chr$|str$)/;
const DECODING_METHODS = new Set(['join', 'decode']);

export abstract class SinkScope extends GuardScope {
  protected decodedConstant(node: Node, qualified: string | undefined, method: string | undefined, args: CallArguments): Taint | undefined {
    const first = args.positional[0];
    let text: string | undefined;
    let how = `decoded by ${qualified ?? method}`;
    const encoding = qualified ? DECODERS[qualified] : undefined;
    const literal = first ? this.staticText(first) : { text: '', complete: false };
    if (!first) {
      // `bytes([...]).decode()`: only the evaluator below reads a call without arguments.
    } else if (encoding && literal.complete) {
      text = Buffer.from(literal.text, encoding).toString('utf8');
    } else if ((qualified === 'codecs.decode' || qualified === 'codecs.encode') && literal.complete) {
      const codec = stringValue(args.positional[1] ?? args.keywords.get('encoding'))?.toLowerCase().replace('-', '_');
      if (codec === 'rot13' || codec === 'rot_13') text = literal.text.replace(/[a-z]/gi, (c) => String.fromCharCode(((c.toLowerCase().charCodeAt(0) - 97 + 13) % 26) + (c === c.toLowerCase() ? 97 : 65)));
      else if (codec === 'hex') text = Buffer.from(literal.text, 'hex').toString('utf8');
      else if (codec === 'base64') text = Buffer.from(literal.text, 'base64').toString('utf8');
    } else if (qualified && (qualified === 'zlib.decompress' || qualified === 'gzip.decompress') && first.type === 'call') {
      const innerName = dottedName(first.childForFieldName('function'));
      const inner = innerName ? DECODERS[qualify(this.module, innerName)] : undefined;
      const payload = this.staticText(callArguments(first).positional[0] ?? first);
      if (inner && payload.complete) {
        try {
          const bytes = Buffer.from(payload.text, inner);
          text = (qualified === 'gzip.decompress' ? gunzipSync(bytes) : inflateSync(bytes)).toString('utf8');
        } catch {
          text = undefined;
        }
      }
    }
    if (text === undefined && ((qualified && DECODING_ENTRIES.test(qualified)) || (method && DECODING_METHODS.has(method)))) {
      // Chains (`b64decode(s[::-1])`, `"".join(chr(c ^ k) for c in data)`) evaluated on the literals.
      const decoded = decodePython(node, {
        qualify: (name) => qualify(this.module, name),
        constant: (name) => this.assignedValues.get(name) ?? this.module.constants.get(name),
      });
      // Three characters or fewer is a separator or a newline, not a payload.
      if (decoded && decoded.text.length > 3) {
        text = decoded.text;
        how = `decodes a literal (${decoded.ops.join(' → ')})`;
      }
    }
    if (text === undefined) return undefined;
    return {
      origin: { kind: 'decoded-constant', detail: shownDecoded(text) },
      composition: 'whole',
      steps: [this.step(node, how)],
      sanitizers: [],
      crossFile: false,
    };
  }

  // ─── Sinks ────────────────────────────────────────────────────────────────────────────────────

  protected sinks(
    node: Node,
    call: {
      written: string;
      qualified: string | undefined;
      method: string | undefined;
      object: Node | null | undefined;
      receiverType: string | undefined;
      args: CallArguments;
      argTaints: Taint[][];
      keywordTaints: Map<string, Taint[]>;
      receiver: Taint[];
    },
  ): SinkKind | undefined {
    const { written, qualified, method, receiverType, args, argTaints, keywordTaints, receiver } = call;
    const positional = (index: number, keyword?: string): Taint[] => argTaints[index] ?? (keyword ? keywordTaints.get(keyword) : undefined) ?? [];
    const isLocalFunction = qualified !== undefined && !qualified.includes('.') && this.module.functions.has(qualified);

    if (qualified && !isLocalFunction) {
      if (COMMAND_SHELL.has(qualified)) {
        this.report(this.sinkAt(node, 'command', written, { shell: true }), positional(0, 'cmd'));
        this.uploadThroughCommand(node, written, args.positional[0] ?? args.keywords.get('cmd'), positional(0, 'cmd'));
        return 'command';
      }
      if (COMMAND_SUBPROCESS.has(qualified)) {
        const shell = this.isTrue(args.keywords.get('shell'));
        this.commandSink(node, written, positional(0, 'args'), shell);
        this.uploadThroughCommand(node, written, args.positional[0] ?? args.keywords.get('args'), positional(0, 'args'));
        return 'command';
      }
      if (COMMAND_ARGV.test(qualified)) {
        const taints = union(
          ...argTaints.map((taints, index) => taints.map((taint) => derive(taint, { argv: taint.argv ?? (index === 0 ? 'program' : 'arg') }))),
        );
        this.commandSink(node, written, taints, false);
        return 'command';
      }
      if (CODE_CALLS.has(qualified)) {
        this.report(this.sinkAt(node, 'code', written), positional(0));
        return 'code';
      }
      if (OPENER_CALLS.has(qualified)) {
        // The OS opener: whatever scheme the URL names runs its handler (file:, custom protocol handlers).
        this.report(this.sinkAt(node, 'command', written, { role: 'os-open', program: 'webbrowser' }), positional(0, 'url'));
        return 'command';
      }
      if (DESERIALIZE_CALLS.has(qualified) || (YAML_LOAD.has(qualified) && !SAFE_YAML_LOADER.test(args.keywords.get('Loader')?.text ?? args.positional[1]?.text ?? ''))) {
        this.report(this.sinkAt(node, 'deserialize', written), positional(0));
        return 'deserialize';
      }
      if (OPEN_CALLS.has(qualified)) {
        const mode = stringValue(args.positional[1] ?? args.keywords.get('mode')) ?? 'r';
        this.report(this.sinkAt(node, /[wax+]/.test(mode) ? 'file-write' : 'file-read', written), positional(0, 'file'));
        return 'file-read';
      }
      if (FILE_WRITE_CALLS.has(qualified)) {
        this.report(this.sinkAt(node, 'file-write', written), positional(0, 'path'));
        return 'file-write';
      }
      if (FILE_MOVE_CALLS.has(qualified)) {
        this.report(this.sinkAt(node, 'file-write', written), union(positional(0, 'src'), positional(1, 'dst')));
        return 'file-write';
      }
      if (FILE_COPY_CALLS.has(qualified)) {
        this.report(this.sinkAt(node, 'file-read', written), positional(0, 'src'));
        this.report(this.sinkAt(node, 'file-write', written), positional(1, 'dst'));
        return 'file-write';
      }
      if (FILE_READ_CALLS.has(qualified)) {
        this.report(this.sinkAt(node, 'file-read', written), positional(0, 'path'));
        return 'file-read';
      }
      if (SQL_CALLS.has(qualified)) {
        this.report(this.sinkAt(node, 'sql', written), positional(0, 'sql'));
        return 'sql';
      }
      if (REGEX_CALLS.test(qualified)) {
        this.report(this.sinkAt(node, 'regex', written), positional(0, 'pattern'));
        return 'regex';
      }
      if (ALLOCATION_CALLS.has(qualified)) {
        // `range(start, stop)`, `itertools.repeat(x, times)`: any argument may be the count.
        this.report(this.sinkAt(node, 'allocation', written), union(...argTaints, ...keywordTaints.values()));
        return 'allocation';
      }
      if (qualified === 'urllib.request.urlopen' || qualified === 'urllib.request.Request' || qualified === 'urllib2.urlopen') {
        const urlNode = args.positional[0] ?? args.keywords.get('url');
        if (qualified.endsWith('urlopen') && urlNode && this.typeOf(urlNode) === 'urllib.request.Request') return 'network';
        this.networkSink(node, written, urlNode, positional(0, 'url'), union(positional(1, 'data')));
        return 'network';
      }
    }

    const client = receiverType ?? (qualified ? qualified.split('.').slice(0, -1).join('.') : undefined);
    if (method && HTTP_METHODS.has(method) && client && HTTP_CLIENT_TYPES.has(client)) {
      const urlIndex = method === 'request' || method === 'stream' ? 1 : 0;
      const urlNode = args.positional[urlIndex] ?? args.keywords.get('url');
      const payload = union(
        ...PAYLOAD_KEYWORDS.map((key) => keywordTaints.get(key) ?? []),
        ...(method === 'post' || method === 'put' || method === 'patch' ? [argTaints[urlIndex + 1] ?? []] : []),
      );
      this.networkSink(node, written, urlNode, urlNode ? this.expression(urlNode) : [], payload, call.object ? this.clientBase(call.object) : undefined);
      return 'network';
    }

    if (!method) return undefined;
    if (LOG_METHODS.has(method) && LOGGER_NAME.test(written.split('.').at(-2) ?? '')) {
      this.report(this.sinkAt(node, 'log', written), union(...argTaints, ...keywordTaints.values()));
      return 'log';
    }
    if (SQL_METHODS.has(method)) {
      this.report(this.sinkAt(node, 'sql', written), positional(0, 'statement'));
      // Bound values reach the statement too, safely for injection: kept so rules can see whose rows a query is about.
      const bound = positional(1, 'parameters').map((taint) => derive(taint, { sanitizers: [...taint.sanitizers, 'parameterised-sql'] }));
      if (bound.length) this.report(this.sinkAt(node, 'sql', written), bound);
      return 'sql';
    }
    if (receiverType === 'socket.socket' && (method === 'sendall' || method === 'send' || method === 'sendto')) {
      this.report(this.sinkAt(node, 'network-send', written), positional(0, 'data'));
      return 'network-send';
    }
    if (method === 'sendmail' || method === 'send_message') {
      this.emailSink(node, written, args);
      return 'email';
    }
    const pathLike = receiverType === 'pathlib.Path';
    if (PATH_READ_METHODS.has(method) && (pathLike || method.startsWith('read_'))) {
      this.report(this.sinkAt(node, 'file-read', written), receiver);
      return 'file-read';
    }
    if (PATH_WRITE_METHODS.has(method) && (pathLike || method.startsWith('write_'))) {
      this.report(this.sinkAt(node, 'file-write', written), union(receiver, method === 'rename' || method === 'replace' ? positional(0, 'target') : []));
      return 'file-write';
    }
    if (method === 'open' && pathLike) {
      const mode = stringValue(args.positional[0] ?? args.keywords.get('mode')) ?? 'r';
      this.report(this.sinkAt(node, /[wax+]/.test(mode) ? 'file-write' : 'file-read', written), receiver);
    }
    return undefined;
  }

  // ─── Capabilities ─────────────────────────────────────────────────────────────────────────────

  /** What a sink reached from a tool lets it do, whatever reaches it: its path, command words or host (capabilities.ts). */
  protected noteReach(
    node: Node,
    call: { written: string; qualified: string | undefined; method: string | undefined; object: Node | null | undefined; receiverType: string | undefined; args: CallArguments },
    sinkKind: SinkKind | undefined,
  ): void {
    const { written, qualified, method, object, receiverType, args } = call;
    const first = args.positional[0] ?? args.keywords.get('file') ?? args.keywords.get('path') ?? args.keywords.get('src');
    const location = { file: this.module.path, line: node.startPosition.row + 1, column: node.startPosition.column + 1 };
    const pathOf = (target: Node | null | undefined): string | undefined => (target ? this.staticPath(target, 0, true) : undefined);
    let kind = sinkKind;
    let path: string | undefined;
    const opened = qualified !== undefined && OPEN_CALLS.has(qualified) ? 'call' : method === 'open' && receiverType === 'pathlib.Path' ? 'method' : undefined;
    if (opened) {
      const mode = stringValue(opened === 'call' ? (args.positional[1] ?? args.keywords.get('mode')) : (args.positional[0] ?? args.keywords.get('mode'))) ?? 'r';
      kind = /[wax+]/.test(mode) ? 'file-write' : 'file-read';
      path = pathOf(opened === 'call' ? first : object);
    } else if (kind === 'file-read' || kind === 'file-write') {
      // `Path(...).write_text(x)`: the path is the receiver; `os.remove(p)`, `shutil.copy(a, b)`: the first argument.
      const onReceiver = object && method && (PATH_READ_METHODS.has(method) || PATH_WRITE_METHODS.has(method)) && !(qualified && (FILE_WRITE_CALLS.has(qualified) || FILE_READ_CALLS.has(qualified) || FILE_MOVE_CALLS.has(qualified) || FILE_COPY_CALLS.has(qualified)));
      path = pathOf(onReceiver ? object : qualified && FILE_COPY_CALLS.has(qualified) ? (args.positional[1] ?? first) : first);
    }
    if (!kind) return;
    // `(CACHE_DIR / name).write_text`: a long receiver expression is shown by its method only.
    const callee = written.length > 40 && method ? `….${method}` : written;
    const facts: SinkFacts = { kind, callee, location, ...(path !== undefined && { path }) };
    if (kind === 'command') {
      const command = args.positional[0] ?? args.keywords.get('args') ?? args.keywords.get('cmd');
      const words = command?.type === 'list' || command?.type === 'tuple' ? command.namedChildren.filter((item): item is Node => item !== null) : command ? [command] : [];
      const texts = words.map((word) => {
        const text = this.staticText(word);
        return text.complete ? text.text : text.text ? `${text.text}*` : '*';
      });
      if (texts.length) facts.command = texts.join(' ');
    }
    if (kind === 'network' || kind === 'network-send') {
      const client = receiverType ?? (qualified ? qualified.split('.').slice(0, -1).join('.') : undefined);
      const urlIndex = method === 'request' || method === 'stream' ? 1 : 0;
      const urlNode = args.positional[client && HTTP_CLIENT_TYPES.has(client) ? urlIndex : 0] ?? args.keywords.get('url');
      const text = urlNode ? this.staticText(urlNode) : undefined;
      const base = object ? this.clientBase(object) : undefined;
      const target = text?.complete && /^[a-z][a-z0-9+.-]*:/i.test(text.text) ? text.text : (fixedHostOf(text?.text ?? '') ?? base);
      if (target) facts.target = target;
      // `http.get(url)` in a helper: each caller's argument names the host.
      const param = !target && urlNode?.type === 'identifier' ? this.parameterIndex.get(urlNode.text) : undefined;
      for (const capability of sinkCapabilities(facts)) {
        if (param !== undefined) URL_PARAMS.set(capability, param);
        addCapability(this.reach!, capability);
      }
      return;
    }
    for (const capability of sinkCapabilities(facts)) addCapability(this.reach!, capability);
  }

  /** Adds a callee's capabilities at a call, with the host of a request whose URL this call passes (capabilities.ts `atCall`). */
  protected mergeAt(into: Reach, from: Reach, call: Node, boundNodes: Array<Node | undefined>): void {
    for (const fn of from.functions) into.functions.add(fn);
    const text = (index: number): string | undefined => {
      const bound = boundNodes[index];
      return bound ? this.staticText(bound).text || undefined : undefined;
    };
    const forwarded = (index: number): number | undefined => {
      const bound = boundNodes[index];
      return bound?.type === 'identifier' ? this.parameterIndex.get(bound.text) : undefined;
    };
    const at = location(this.module.path, call);
    for (const capability of from.capabilities.values()) addCapability(into, atCall(capability, text, forwarded, at));
  }

  /** The environment read here (`os.environ[...]`, `os.getenv`), for the reaching tool's capabilities. */
  protected noteEnv(node: Node): void {
    if (this.reach) addCapability(this.reach, envCapability(snippet(node).slice(0, 60), location(this.module.path, node)));
  }

  /** `curl -d "$(cat ~/.ssh/id_rsa)" https://…` through subprocess: secrets handed to a network tool leave the process too. */
  protected uploadThroughCommand(node: Node, callee: string, command: Node | undefined, taints: Taint[]): void {
    const leaked = taints.filter((taint) => !taint.param && taint.origin.kind !== 'tool-input');
    if (!command || leaked.length === 0) return;
    const words = command.type === 'list' || command.type === 'tuple' ? command.namedChildren.filter((item): item is Node => item !== null).map((item) => this.staticText(item).text) : this.staticText(command).text.split(/\s+/);
    if (!NETWORK_TOOLS.test(words[0] ?? '')) return;
    const target = words.join(' ').match(/[a-z][a-z0-9+.-]*:\/\/[^\s'"]+/i)?.[0];
    this.report(this.sinkAt(node, 'network-send', callee, target ? { target } : {}), leaked);
  }

  protected commandSink(node: Node, callee: string, taints: Taint[], shell: boolean): void {
    for (const taint of taints) {
      const placed = placeInArgv(this.sinkAt(node, 'command', callee, { shell }), taint);
      this.report(placed.sink, [placed.taint]);
    }
  }

  protected networkSink(node: Node, callee: string, urlNode: Node | undefined, urlTaints: Taint[], payload: Taint[], baseUrl?: string): void {
    const url = urlNode ? this.staticText(urlNode) : { text: '', complete: false };
    // A path relative to a client's constant base_url cannot leave that host.
    const relativeToBase = baseUrl !== undefined && url.text.length > 0 && !/^[a-z][a-z0-9+.-]*:/i.test(url.text) ? fixedHostOf(`${baseUrl.replace(/\/$/, '')}/`) : undefined;
    const target = url.complete && !relativeToBase ? url.text : (fixedHostOf(url.text) ?? relativeToBase);
    const extra = target ? { target } : {};
    // A destination someone chose: the caller's, or one the package hid in an encoded literal (as in JS).
    const chooses = (taint: Taint) => taint.origin.kind === 'tool-input' || taint.origin.kind === 'decoded-constant' || !!taint.param;
    const inputs = urlTaints.filter(chooses).map((taint) => (relativeToBase ? derive(taint, { hostFixed: relativeToBase }) : taint));
    // Secrets spliced into a URL leave the process as surely as a request body.
    const leaked = urlTaints.filter((taint) => !chooses(taint));
    const destination = !target && urlNode?.type === 'identifier' ? this.parameterIndex.get(urlNode.text) : undefined;
    const sinkOf = (kind: SinkKind) => {
      const sink = this.sinkAt(node, kind, callee, extra);
      if (destination !== undefined) this.engine.destinationParam.set(sink, destination);
      return sink;
    };
    if (inputs.length > 0) this.report(sinkOf('network'), inputs);
    if (leaked.length > 0 || payload.length > 0) this.report(sinkOf('network-send'), union(leaked, payload));
  }

  /** A helper's sink whose URL is one of its parameters, with the destination this call passes filled in. */
  protected destinationAt(sink: SinkInfo, argument: Node | undefined): SinkInfo {
    if (!argument) return sink;
    const text = this.staticText(argument);
    const target = text.complete ? text.text : fixedHostOf(text.text);
    if (target) return { ...sink, target };
    const index = argument.type === 'identifier' ? this.parameterIndex.get(argument.text) : undefined;
    if (index === undefined) return sink;
    const forwarded = { ...sink };
    this.engine.destinationParam.set(forwarded, index);
    return forwarded;
  }

  protected emailSink(node: Node, callee: string, args: CallArguments): void {
    const sendmail = callee.endsWith('sendmail');
    const messageNode = sendmail ? (args.positional[2] ?? args.keywords.get('msg')) : (args.positional[0] ?? args.keywords.get('msg'));
    const recipientsNode = sendmail ? (args.positional[1] ?? args.keywords.get('to_addrs')) : (args.positional[2] ?? args.keywords.get('to_addrs'));
    const recipients: string[] = [];
    if (recipientsNode) {
      const elements = recipientsNode.type === 'list' || recipientsNode.type === 'tuple' ? recipientsNode.namedChildren.filter((item): item is Node => item !== null) : [recipientsNode];
      const mixed = elements.some((element) => !this.staticText(element).complete);
      for (const element of elements) {
        const text = this.staticText(element);
        // A constant address next to the caller's own recipient is a silent extra copy.
        if (text.complete) recipients.push(...text.text.split(/\s*[,;]\s*/).filter(Boolean).map((item) => (mixed ? `bcc:${item}` : item)));
      }
    }
    if (messageNode) {
      const base = baseIdentifier(messageNode);
      if (base) recipients.push(...(this.recipients.get(base) ?? []));
    }
    const extra = recipients.length > 0 ? { target: [...new Set(recipients)].join(', ') } : {};
    const messageTaints = messageNode ? this.expression(messageNode) : [];
    const recipientTaints = recipientsNode ? this.expression(recipientsNode) : [];
    this.report(this.sinkAt(node, 'email', callee, extra), union(messageTaints, recipientTaints));
  }
}
