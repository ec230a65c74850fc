// What both dataflow front ends (JS/TS with oxc, Python with tree-sitter) know about sources, sanitizers and the
// programs that run their arguments, declared once: a new source kind, sanitizer or launcher is one change here.
// The front ends map their own syntax onto these names; the rules read only the names.
import type { OriginKind, SinkKind, TaintFlow } from '../model.js';

/**
 * Where a value reaching a sink came from, as reports show it (DESIGN.md: a finding's flow starts with its source
 * step). `tool-input`: a tool's arguments, chosen by the model. `http-request`: data of a request to the package's own
 * web routes. `remote-response`: what a server the package talks to answered (a fetched document, OAuth metadata, a
 * connected MCP server's results). `environment`, `file`: the machine's secrets. `decoded-constant`: the package's own
 * literal, decoded at run time.
 */
export const SOURCE_KINDS = ['tool-input', 'http-request', 'remote-response', 'environment', 'file', 'decoded-constant'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export const SOURCE_OF_ORIGIN: Partial<Record<OriginKind, SourceKind>> = {
  'tool-input': 'tool-input',
  'http-request': 'http-request',
  'remote-response': 'remote-response',
  env: 'environment',
  'sensitive-file': 'file',
  'decoded-constant': 'decoded-constant',
};

/** Origins an outsider chooses: a flow of one into a dangerous sink is an injection. */
export const UNTRUSTED_ORIGINS: readonly OriginKind[] = ['tool-input', 'http-request', 'remote-response'];

/**
 * What a remote server's answer may reach before it is a finding: running it. A response's links, names and paths
 * feeding further requests or files is how API clients work (pagination, downloads) and is not reported.
 */
export const REMOTE_RESPONSE_SINKS: ReadonlySet<SinkKind> = new Set(['command', 'code', 'deserialize']);

/**
 * What each recognised guard proves, as the sink kinds it makes safe. A guard protects only what its check proves: a
 * path containment check does not make a shell string safe, and a leading-dash check only stops option injection.
 * `argument` stands for option injection into a program's argv, `os-open` for a value handed to the OS opener (see
 * `ArgvRole`).
 */
export type GuardedKind = SinkKind | 'argument' | 'os-open';
const ALL: readonly GuardedKind[] = ['command', 'code', 'deserialize', 'file-read', 'file-write', 'network', 'network-send', 'sql', 'email', 'argument', 'os-open'];
const FILES: readonly GuardedKind[] = ['file-read', 'file-write'];

export const SANITIZER_PROTECTS: Readonly<Record<string, readonly GuardedKind[]>> = {
  // The value cannot be anything but what the schema or a constant list allows.
  'schema-enum': [...ALL, 'allocation', 'regex'],
  // A restrictive pattern may still admit a leading `-`; the front end adds no-leading-dash when it cannot.
  'schema-pattern': ALL.filter((kind) => kind !== 'argument'),
  allowlist: [...ALL, 'allocation', 'regex'],
  // A count or a length (`len(password)`) tells nothing of a secret either.
  numeric: [...ALL, 'log', 'tool-result'],
  // Kept characters may include `-`, so an option can still be formed.
  'character-allowlist': ALL.filter((kind) => kind !== 'argument'),
  validator: ALL,
  // Command lines: quoting or an argv without a shell.
  'shell-escape': ['command'],
  'execFile-argv': ['command'],
  // Options: `--` before the value, a check that it does not start with `-`, or the value of the option before it
  // (`['-n', ns]`: a value-taking option consumes the next word whatever it starts with).
  'end-of-options': ['argument'],
  'no-leading-dash': ['argument'],
  'option-value': ['argument'],
  // Paths: containment in a root, or a bare file name.
  'realpath-containment': FILES,
  'path-containment': FILES,
  basename: [...FILES, 'argument'],
  // Reached only when the operator turned on an off-by-default switch (`--allow-unrestricted-paths`): skipping the
  // containment check there is the operator's decision. It waives containment only, so it protects files alone.
  'operator-opt-in': FILES,
  // `${encodeURIComponent(name)}.json`, `f"{quote(name, safe='')}.md"`: a value made one path segment (encoded, a
  // basename, separators stripped) with constant text beside it in that segment cannot be `..` or `.`, so joined to a
  // folder it names one entry of it (see docs/scanning.md). The segment alone is not sanitised: `..` climbs one level.
  'single-path-segment': FILES,
  // URLs: a fixed host or an allowlist of hosts; for the opener, a scheme checked to be http(s) (no `file:`, no
  // custom protocol handlers, and the URL parser has normalised it).
  'url-allowlist': ['network', 'network-send', 'os-open'],
  'url-scheme': ['os-open'],
  'fixed-host': ['network'],
  // SQL: bound parameters or a query builder's escaping.
  'parameterised-sql': ['sql'],
  // Sizes and counts: an upper bound (`Math.min(n, MAX)`, `if (n > MAX) throw`, a schema `maximum`/`.max()`/`le=`).
  // A number is exactly what an allocation takes, so `numeric` does not protect it.
  bounded: ['allocation'],
  // Regular expressions: the text escaped to match itself (`escapeRegExp`, `re.escape`). A schema pattern or kept
  // characters written against shell metacharacters may still admit `(a+)+`, so they do not count here.
  'regex-escape': ['regex'],
  // Secrets: a part of the value (`key.slice(0, 4)`, `token.substring(token.length - 4)`) is a masked form of it, fine
  // in a log or a result; it is still a part of a path or a command.
  masked: ['log', 'tool-result'],
};

/**
 * Whether constant text beside a one-segment value (see `single-path-segment`), in the same path segment, keeps that segment from being `..` or `.`:
 * `before` is the text just before it (its last segment counts), `after` the text just after it (its first segment).
 */
export function namesOneFile(before: string | undefined, after: string | undefined): boolean {
  const tail = before === undefined ? '' : (before.split(/[\\/]/).pop() ?? '');
  const head = after === undefined ? '' : (after.split(/[\\/]/)[0] ?? '');
  return /[^.]/.test(tail) || /[^.]/.test(head);
}

/**
 * Whether replacing every match of a pattern (`[\\/]`, `[/\\]+`) by a text without separators leaves no `/` or `\\`:
 * the result is one path segment. The pattern is tried on three fixed short strings only (never on scanned input), so
 * compiling it is safe; a pattern the JS engine cannot read does not count.
 */
export function stripsSeparators(pattern: string, flags: string, replacement: string): boolean {
  if (!flags.includes('g') || /[\\/]/.test(replacement) || pattern.length > 40) return false;
  try {
    const compiled = new RegExp(pattern, flags.replace(/[^gimsu]/g, ''));
    return ['a/b', 'a\\b', '../..'].every((sample) => !/[\\/]/.test(sample.replace(compiled, replacement)));
  } catch {
    return false;
  }
}

/**
 * Guards that look like containment but do not prove it. They are kept on the flow (so the finding can say what is
 * wrong with the check) and protect nothing.
 */
export const WEAK_GUARDS: Readonly<Record<string, string>> = {
  'sql-keyword-prefix':
    'the statement is judged by its first word, so stacked statements (`SELECT 1; DROP TABLE users`) and ' +
    'data-changing CTEs (`WITH x AS (DELETE … RETURNING *) SELECT …`) pass a read-only or statement-kind check',
  'prefix-without-separator':
    'the containment check compares string prefixes without a path separator, so a sibling directory whose name ' +
    'starts with the allowed one (`/data` → `/data-private`) passes',
};

/**
 * Whether an anchored pattern lets a value start with `-` (so it could be read as an option): `^[a-z0-9-]+$` does,
 * `^[a-z][a-z0-9-]*$` and `^https://` do not. Unanchored or unreadable patterns are assumed to.
 */
export function admitsLeadingDash(pattern: string): boolean {
  if (!pattern.startsWith('^')) return true;
  const rest = pattern.slice(1).replace(/^\(\?:|^\(/, '');
  if (rest.startsWith('[')) {
    const end = rest.indexOf(']', 1);
    const body = rest.slice(1, end);
    if (body.startsWith('^')) return !body.includes('-');
    return /(^|[^\\])-$|^-|\\-|\\[sSWD]/.test(body) || /[^\w\s]-[^\w\s]/.test(body);
  }
  if (rest.startsWith('\\d') || rest.startsWith('\\w')) return false;
  if (/^[A-Za-z0-9_/.:@]/.test(rest)) return false;
  return true;
}

/** An anchored pattern without wildcards: `^[a-zA-Z0-9_-]+$` restricts; `^.*$` does not. */
export function isRestrictivePattern(pattern: string): boolean {
  if (!pattern.startsWith('^') || !pattern.endsWith('$')) return false;
  if (/(^|[^\\])\.[*+{]|\\S|\[\^/.test(pattern)) return false;
  // Shell and path metacharacters admitted by a character class defeat the purpose.
  const classes = pattern.match(/\[[^\]]*\]/g) ?? [];
  return !classes.some((cls) => /[;&|`$<>]|\\s|\.\.|\//.test(cls));
}

/** A statement kind checked by its first word (`startsWith('select')`), a weak guard for SQL. */
export const SQL_STATEMENT_START = /^(select|with|insert|update|delete|show|describe|explain|pragma|values)\b/i;

/**
 * The upper bound a JSON schema property declares on a value or its size (`maximum`, `maxLength`, `maxItems` …): the
 * `bounded` guard of a tool parameter, in whichever language its schema is read.
 */
export function upperBound(field: (key: string) => unknown): number | undefined {
  const bounds = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems'].map(field).filter((value): value is number => typeof value === 'number');
  return bounds.length ? Math.min(...bounds) : undefined;
}

/** Whether `sanitizers` make a flow into `kind` safe. */
export function isGuarded(kind: GuardedKind, sanitizers: readonly string[]): boolean {
  return sanitizers.some((name) => SANITIZER_PROTECTS[name]?.includes(kind) === true);
}

/** What a flow's guards must protect: option injection for an argv element where an option may stand, else the sink. */
export function guardedKindOf(flow: Pick<TaintFlow, 'sink'>): GuardedKind {
  if (flow.sink.role === 'option') return 'argument';
  if (flow.sink.role === 'os-open') return 'os-open';
  return flow.sink.kind;
}

/** Whether a flow's recognised guards make it safe for what its sink does. */
export function isSafeFlow(flow: Pick<TaintFlow, 'sink' | 'sanitizers'>): boolean {
  return isGuarded(guardedKindOf(flow), flow.sanitizers);
}

// ─── Programs and their argv ────────────────────────────────────────────────────────────────────

/** Shells and the flag after which the next argument is shell code. */
const SHELL_CODE_FLAGS: Readonly<Record<string, readonly string[]>> = {
  sh: ['-c'], bash: ['-c'], zsh: ['-c'], dash: ['-c'], ksh: ['-c'], fish: ['-c', '--command'], ash: ['-c'], busybox: [],
  cmd: ['/c', '/k', '/C', '/K'], powershell: ['-command', '-c', '-encodedcommand', '-e'], pwsh: ['-command', '-c', '-encodedcommand', '-e'],
  python: ['-c'], python3: ['-c'], node: ['-e', '--eval', '-p', '--print'], perl: ['-e', '-E'], ruby: ['-e'], osascript: ['-e'],
};

/** Programs that hand their argument to the operating system's handler for it (a URL or file opens in whatever is registered). */
const OS_OPENERS = new Set(['open', 'xdg-open', 'start', 'explorer', 'rundll32', 'gio', 'kde-open', 'gnome-open', 'wslview']);

/** Wrappers that run the rest of their argv as a new command line (after their own options). */
const WRAPPERS = new Set(['env', 'sudo', 'doas', 'nice', 'nohup', 'timeout', 'time', 'xargs', 'npx', 'exec', 'stdbuf', 'chroot']);

/**
 * Remote or device shells: the words after these prefixes are joined and run by a shell on the other side
 * (`ssh host cmd…`, `adb shell cmd…`, `kubectl exec pod -- cmd…` runs argv, but a shell program there is code again).
 */
const REMOTE_SHELLS: ReadonlyArray<{ program: string; after: (argv: readonly (string | undefined)[]) => number | undefined }> = [
  // ssh [options] host command…: the first operand is the host, everything after it is a remote command line.
  { program: 'ssh', after: (argv) => firstOperand(argv, 1, SSH_OPTIONS_WITH_VALUE) },
  { program: 'adb', after: (argv) => indexOfWord(argv, 'shell') },
];
const SSH_OPTIONS_WITH_VALUE = new Set(['-b', '-c', '-D', '-E', '-e', '-F', '-I', '-i', '-J', '-L', '-l', '-m', '-O', '-o', '-p', '-Q', '-R', '-S', '-W', '-w']);

/**
 * Command-line tools with options that run commands, write files or change where they connect (`git --upload-pack`,
 * `-c core.sshCommand=…`, `curl -o`/`-K`, `kubectl --kubeconfig`, `find -exec`, `tar --checkpoint-action`, `rsync -e`,
 * `npm --prefix`/scripts, `docker -H`, `ssh -oProxyCommand`): a value placed where an option may stand is argument
 * injection (CWE-88) unless `--` comes first or the value cannot start with `-`.
 */
const OPTION_SENSITIVE = new Set([
  'git', 'gh', 'hg', 'svn', 'kubectl', 'helm', 'oc', 'adb', 'idb', 'xcrun', 'curl', 'wget', 'npm', 'pnpm', 'yarn', 'bun',
  'pip', 'pip3', 'uv', 'docker', 'podman', 'ssh', 'scp', 'sftp', 'rsync', 'tar', 'zip', 'unzip', '7z', 'find', 'sed', 'awk',
  'grep', 'rg', 'ffmpeg', 'convert', 'magick', 'openssl', 'aws', 'gcloud', 'az', 'terraform', 'psql', 'mysql', 'sqlite3',
  'pg_dump', 'mongodump', 'ansible', 'make', 'cargo', 'go', 'deno', 'java', 'mvn', 'gradle', 'jq', 'yq', 'less', 'man',
  'chrome', 'chromium', 'google-chrome', 'firefox', 'code', 'cursor',
]);

/** What an argv element is, for the sink it reaches. */
export type ArgvRole =
  | 'program' // the program itself: whoever picks it runs anything
  | 'shell-code' // code for a shell or interpreter (`sh -c X`, `ssh host X`, `adb shell X`)
  | 'os-open' // handed to the OS's handler (`open X`, `xdg-open X`, `cmd /c start X`)
  | 'option' // where an option of an option-sensitive tool may stand (before `--`)
  | 'operand'; // a plain argument: safe without a shell

/** The last path segment of a program, lower-cased and without `.exe`: `/usr/bin/git` → `git`. */
export function programName(program: string): string {
  const base = program.split(/[\\/]/).pop() ?? program;
  return base.toLowerCase().replace(/\.(exe|cmd|bat)$/, '');
}

/**
 * The role of each element of an argv whose elements are known text (`undefined`: computed at run time). Element 0
 * is the program. Wrappers (`env`, `sudo`, `npx`, `kubectl exec … --`, `docker exec c`) hand the rest to another
 * program, which is classified in turn.
 */
export function classifyArgv(argv: readonly (string | undefined)[]): ArgvRole[] {
  const roles: ArgvRole[] = argv.map(() => 'operand');
  classifyFrom(argv, 0, roles, 0);
  return roles;
}

function classifyFrom(argv: readonly (string | undefined)[], start: number, roles: ArgvRole[], depth: number): void {
  if (start >= argv.length) return;
  roles[start] = 'program';
  const text = argv[start];
  if (text === undefined || depth > 3) return;
  const program = programName(text);
  const rest = (from: number) => classifyFrom(argv, from, roles, depth + 1);

  const codeFlags = SHELL_CODE_FLAGS[program];
  if (codeFlags) {
    for (let i = start + 1; i < argv.length; i++) {
      const word = argv[i];
      if (word !== undefined && codeFlags.some((flag) => flag.toLowerCase() === word.toLowerCase())) {
        for (let j = i + 1; j < argv.length; j++) roles[j] = 'shell-code';
        return;
      }
      // `cmd /c start URL`: start is an opener inside cmd.
    }
    // A shell given a script path or nothing: the operands are a script file and its arguments.
    return;
  }
  if (OS_OPENERS.has(program)) {
    for (let i = start + 1; i < argv.length; i++) roles[i] = 'os-open';
    return;
  }
  if (WRAPPERS.has(program)) {
    const next = firstOperand(argv, start + 1, new Set(['-u', '-n', '-s', '-k', '-p', '-g', '-C', '-I', '-L', '-P']));
    if (next !== undefined) rest(next);
    return;
  }
  const remote = REMOTE_SHELLS.find((shell) => shell.program === program);
  if (remote) {
    const relative = remote.after(argv.slice(start));
    if (relative !== undefined) {
      for (let i = start + 1; i < start + relative + 1 && i < argv.length; i++) roles[i] = OPTION_SENSITIVE.has(program) ? 'option' : 'operand';
      for (let i = start + relative + 1; i < argv.length; i++) roles[i] = 'shell-code';
      return;
    }
  }
  // `kubectl exec pod -- prog …`, `docker exec [opts] container prog …`: the command after is a program of its own.
  if ((program === 'kubectl' || program === 'oc') && argv.slice(start).includes('exec')) {
    const dashes = argv.indexOf('--', start);
    markOptions(argv, start, dashes === -1 ? argv.length : dashes, roles, program);
    if (dashes !== -1) rest(dashes + 1);
    return;
  }
  if ((program === 'docker' || program === 'podman') && argv[start + 1] === 'exec') {
    const container = firstOperand(argv, start + 2, new Set(['-e', '--env', '-u', '--user', '-w', '--workdir', '--env-file']));
    markOptions(argv, start, container === undefined ? argv.length : container + 1, roles, program);
    if (container !== undefined) rest(container + 1);
    return;
  }
  markOptions(argv, start, argv.length, roles, program);
}

/** Elements before `--` of an option-sensitive program are where options stand. */
function markOptions(argv: readonly (string | undefined)[], start: number, end: number, roles: ArgvRole[], program: string): void {
  if (!OPTION_SENSITIVE.has(program)) return;
  for (let i = start + 1; i < end; i++) {
    if (argv[i] === '--') return;
    roles[i] = 'option';
  }
}

/** Index of the first element at or after `from` that is not an option (skipping the values of options that take one). */
function firstOperand(argv: readonly (string | undefined)[], from: number, optionsWithValue: ReadonlySet<string>): number | undefined {
  for (let i = from; i < argv.length; i++) {
    const word = argv[i];
    if (word === undefined) return i;
    if (word === '--') return i + 1 < argv.length ? i + 1 : undefined;
    if (!word.startsWith('-')) return i;
    if (optionsWithValue.has(word)) i++;
  }
  return undefined;
}

function indexOfWord(argv: readonly (string | undefined)[], word: string): number | undefined {
  const found = argv.indexOf(word);
  return found === -1 ? undefined : found;
}

/** Whether options given to this program can run commands, write files or redirect it (see OPTION_SENSITIVE). */
export function isOptionSensitive(program: string): boolean {
  return OPTION_SENSITIVE.has(programName(program));
}

/**
 * What an argv element proves about option injection by where it stands: after a literal `--` (end-of-options), built
 * with a constant start (`--selector=${v}`, `./${name}`: no-leading-dash), or right after a literal option that takes
 * the next element as its value (option-value, see `OPTION_VALUES`). `previous` holds the texts before it, the program
 * first (undefined: computed).
 */
export function argvElementGuard(previous: readonly (string | undefined)[], staticStart: string | undefined): string | undefined {
  return placeGuard(previous, staticStart) ?? (isOptionValue(previous) ? 'option-value' : undefined);
}

/**
 * The same for an element of a list built before its program is known (JS `const args = ['-n', ns]`, later passed to
 * `execFile('kubectl', args)`): whether the option before it takes a value depends on the program, so the guard is a
 * pending mark the sink settles once it knows the program (`settleOptionValues`). `previous` holds the words before it
 * in the list, starting with an undefined word when the list held words not known here (`args.push('-m', msg)`).
 */
export function listElementGuard(previous: readonly (string | undefined)[], staticStart: string | undefined): string | undefined {
  const guard = placeGuard(previous, staticStart);
  if (guard !== undefined || optionBefore(previous) === undefined) return guard;
  return PENDING_OPTION_VALUE + JSON.stringify(previous.map((word) => word ?? null));
}

/** Settles the pending marks of `listElementGuard` for the program a sink runs: option-value, or nothing. */
export function settleOptionValues(sanitizers: readonly string[], program: string | undefined): string[] {
  if (!sanitizers.some((name) => name.startsWith(PENDING_OPTION_VALUE))) return [...sanitizers];
  const settled = sanitizers.flatMap((name) => {
    if (!name.startsWith(PENDING_OPTION_VALUE)) return [name];
    const previous = (JSON.parse(name.slice(PENDING_OPTION_VALUE.length)) as Array<string | null>).map((word) => word ?? undefined);
    return isOptionValue([program, ...previous]) ? ['option-value'] : [];
  });
  return [...new Set(settled)];
}

const PENDING_OPTION_VALUE = 'option-value?';

/** The guards of a place that hold whatever the program: after `--` (or git's `--end-of-options`), a constant start. */
function placeGuard(previous: readonly (string | undefined)[], staticStart: string | undefined): string | undefined {
  if (previous.includes('--') || previous.includes('--end-of-options')) return 'end-of-options';
  if (staticStart !== undefined && staticStart !== '') return 'no-leading-dash';
  return undefined;
}

/** The literal option right before an element (`-m`, `--namespace`; not `--format=x`, whose value is inside it). */
function optionBefore(previous: readonly (string | undefined)[]): string | undefined {
  const before = previous.at(-1);
  return before !== undefined && /^-{1,2}[A-Za-z][\w-]*$/.test(before) ? before : undefined;
}

/**
 * Whether the element after `previous` (the program first) is the value of the option before it. Only an option this
 * catalogue knows to take a value counts: `-m <msg>` is safe only because git consumes the next word as the message,
 * while after a switch (`--stat`, `-v`, `--json`) the next word is read as an option again. An option whose arity is
 * not known here may be a switch, so it must not silence an injection.
 */
function isOptionValue(previous: readonly (string | undefined)[]): boolean {
  const [program] = previous;
  const option = optionBefore(previous);
  const options = program === undefined ? undefined : OPTION_VALUES[programName(program)];
  if (option === undefined || !options) return false;
  if (options.anywhere.includes(option)) return true;
  const place = placeOf(options, previous.slice(1, -1));
  if (place === 'before-subcommand') return options.global?.includes(option) === true;
  return place !== 'unknown' && options.under?.[place.subcommand]?.includes(option) === true;
}

/**
 * Where the next word of an argv stands, from the words after the program: before the subcommand (only options so
 * far), under one (its first other word), or unknown (a word computed at run time may have been either).
 */
function placeOf(options: OptionValues, words: readonly (string | undefined)[]): 'before-subcommand' | 'unknown' | { subcommand: string } {
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word === undefined) return 'unknown';
    if (!word.startsWith('-')) return { subcommand: word };
    if (options.anywhere.includes(word) || options.global?.includes(word) || options.risky?.includes(word)) i++;
  }
  return 'before-subcommand';
}

/** The options of a program that take the next argv element as their value. */
interface OptionValues {
  /** Read before the subcommand only: `git -C <path> log` (after it, `git log -C` is a switch). */
  readonly global?: readonly string[];
  /** A value under every subcommand that has them. */
  readonly anywhere: readonly string[];
  /** A value under these subcommands only: `git commit -m <msg>`, while `git checkout -m` is a switch. */
  readonly under?: Readonly<Record<string, readonly string[]>>;
  /** Read before the subcommand with a value that is no safe place (`git -c core.sshCommand=…`): see `OPTION_VALUES`. */
  readonly risky?: readonly string[];
}

const MANIFEST_FILE = ['-f', '--filename'];
// kubectl's flags (and oc's, its OpenShift build) take their value in every command that has them.
const KUBECTL_OPTION_VALUES: OptionValues = {
  anywhere: [
    '-n', '--namespace', '--context', '--cluster', '--user', '-l', '--selector', '--field-selector', '-o', '--output', '-c', '--container',
    '--sort-by', '-L', '--label-columns', '--since', '--since-time', '--tail', '--timeout', '--request-timeout', '--replicas', '--image', '--type',
  ],
  // `kubectl logs -f` follows, `kubectl logs -p` shows the previous container: these read a manifest or a patch.
  under: {
    apply: MANIFEST_FILE, create: MANIFEST_FILE, delete: MANIFEST_FILE, replace: MANIFEST_FILE, get: MANIFEST_FILE, describe: MANIFEST_FILE,
    scale: MANIFEST_FILE, label: MANIFEST_FILE, annotate: MANIFEST_FILE, patch: [...MANIFEST_FILE, '-p', '--patch', '--patch-file'],
  },
};
const DOCKER_OPTION_VALUES: OptionValues = {
  anywhere: ['-e', '--env', '--name', '-w', '--workdir', '-u', '--user', '--format', '--network', '--platform', '--tail', '--since', '--until', '--label', '--filter'],
  // `docker run -t` and `docker logs -f` are switches.
  under: { build: ['-t', '--tag', '-f', '--file'], ps: ['-f'], images: ['-f'] },
};
/**
 * Value-taking options of option-sensitive programs, limited to well-known ones whose arity is sure. Options whose
 * value is itself a command, a configuration, an output file or the server to talk to (`git -c`, `--upload-pack`,
 * `--output`; `curl -o`, `-K`, `-x`, `-H @file`; `kubectl --kubeconfig`, `--server`, `--as`; `ssh -o`, `-F`; `docker -v`,
 * `--entrypoint`; `helm --post-renderer`) are left out on purpose: a value there is as dangerous as an injected
 * option, so it stays reported (git's global ones are `risky`, to find the subcommand after them). Bundled switches
 * (`-am`, `-xzf`) are not read: their letters' arity is not known.
 */
const OPTION_VALUES: Readonly<Record<string, OptionValues>> = {
  git: {
    global: ['-C', '--git-dir', '--work-tree', '--namespace'],
    risky: ['-c', '--config-env'],
    // `git rebase --skip` is an action, so `--skip` is a value under the log family only.
    anywhere: ['--author', '--committer', '--since', '--until', '--after', '--before', '--grep', '--max-count', '--message', '--file', '--depth', '--jobs', '--template', '--reference', '--origin'],
    under: {
      commit: ['-m', '-F', '-C', '-c', '-t', '--date', '--reuse-message', '--reedit-message'],
      merge: ['-m', '-F', '-s', '--strategy', '-X', '--strategy-option'],
      tag: ['-m', '-F', '-u', '--local-user', '--format', '--sort'],
      stash: ['-m'],
      notes: ['-m', '-F'],
      'cherry-pick': ['-m', '--mainline'],
      revert: ['-m', '--mainline'],
      // `git log --format X` is not a value (only `--format=X` is): X is read as an option.
      log: ['-n', '-L', '--skip'],
      show: ['-n', '--skip'],
      'rev-list': ['-n', '--skip'],
      whatchanged: ['-n', '--skip'],
      blame: ['-L'],
      grep: ['-e', '-f', '-m', '-A', '-B', '-C'],
      checkout: ['-b', '-B', '--orphan'],
      switch: ['-c', '-C', '--create', '--force-create', '--orphan'],
      clone: ['-b', '--branch', '-o', '-j'],
      worktree: ['-b', '-B'],
      branch: ['--format', '--sort'],
      'for-each-ref': ['--format', '--sort', '--count'],
      push: ['-o', '--push-option'],
    },
  },
  kubectl: KUBECTL_OPTION_VALUES,
  oc: KUBECTL_OPTION_VALUES,
  helm: { anywhere: ['-n', '--namespace', '--kube-context', '--version', '-f', '--values', '--set', '--set-string', '-o', '--output', '--timeout', '--description', '--revision'] },
  curl: { anywhere: ['-X', '--request', '-A', '--user-agent', '-e', '--referer', '-m', '--max-time', '--connect-timeout', '--retry', '-r', '--range', '-u', '--user', '--data-raw', '--url'] },
  npm: { anywhere: ['-w', '--workspace', '--tag', '--access', '--otp', '--loglevel'] },
  docker: DOCKER_OPTION_VALUES,
  podman: DOCKER_OPTION_VALUES,
  gh: { anywhere: ['-R', '--repo', '-b', '--body', '-t', '--title', '-B', '--base', '--head', '--label', '-L', '--limit', '--state', '--json', '-q', '--jq', '--search', '--assignee', '--milestone', '--author'] },
  adb: { global: ['-s', '-t'], anywhere: [] },
  ssh: { anywhere: ['-b', '-c', '-e', '-i', '-l', '-m', '-p', '-Q'] },
  find: { anywhere: ['-name', '-iname', '-path', '-ipath', '-wholename', '-regex', '-iregex', '-type', '-maxdepth', '-mindepth', '-size', '-mtime', '-mmin', '-newer', '-user', '-group', '-perm'] },
  grep: { anywhere: ['-e', '--regexp', '-m', '--max-count', '-A', '-B', '-C', '--include', '--exclude', '--exclude-dir'] },
  rg: { anywhere: ['-e', '--regexp', '-g', '--glob', '-t', '--type', '-T', '--type-not', '-m', '--max-count', '-A', '-B', '-C', '--max-depth'] },
};

/** Whether a program run with the argument string of `exec`-style APIs is an opener (`open "$URL"`, `start URL`). */
export function isOsOpener(program: string): boolean {
  return OS_OPENERS.has(programName(program));
}

/**
 * Messaging APIs whose servers fetch every link in a posted message to build a preview, unless the body turns it off:
 * a message the model writes can carry a URL whose query string holds the conversation or a secret, and the preview
 * fetch delivers it to the attacker with no click (CVE-2025-34072). `off`: the body fields that turn previews off.
 */
const LINK_PREVIEW_APIS: ReadonlyArray<{ endpoint: RegExp; off: readonly string[] }> = [
  { endpoint: /^https:\/\/slack\.com\/api\/chat\.(postMessage|update|scheduleMessage)\b/, off: ['unfurl_links'] },
  { endpoint: /^https:\/\/(discord|discordapp)\.com\/api\/(v\d+\/)?(webhooks|channels)\//, off: ['flags'] },
  { endpoint: /^https:\/\/api\.telegram\.org\/bot[^/]*\/(sendMessage|editMessageText)\b/, off: ['disable_web_page_preview', 'link_preview_options'] },
];

/** Whether posting a body with these fields to `url` makes the service fetch the links in it. */
export function linkPreviewsOn(url: string | undefined, bodyFields: readonly string[]): boolean {
  const api = url === undefined ? undefined : LINK_PREVIEW_APIS.find((candidate) => candidate.endpoint.test(url));
  return api !== undefined && !api.off.some((field) => bodyFields.includes(field));
}

/**
 * Packages whose default export opens a URL or file with the OS's handler (on Windows through `cmd /c start` or
 * PowerShell, which re-parse the string: CVE-2025-6514). Their argument is `os-open`.
 */
export const OPENER_PACKAGES = new Set(['open', 'opn', 'better-opn', 'openurl', 'open-url', 'opener']);

// ─── Library classes ────────────────────────────────────────────────────────────────────────────

/**
 * Methods of library classes that run a command the caller gives, in a container or pod ("run in a container" APIs):
 * `argument` is the command, an argv array whose first element is the program (`property`: the field of an options
 * object that holds it). The dataflow matches them on instances it can trace to the class (`new k8s.Exec(kc)`).
 */
export const INSTANCE_COMMAND_SINKS: ReadonlyArray<{ module: string; className: string; method: string; argument: number; property?: string }> = [
  // @kubernetes/client-node: new Exec(kubeConfig).exec(namespace, pod, container, command, stdout, stderr, stdin, tty, status)
  { module: '@kubernetes/client-node', className: 'Exec', method: 'exec', argument: 3 },
  // dockerode: container.exec({ Cmd: ['sh', '-c', …], AttachStdout: true })
  { module: 'dockerode', className: 'Container', method: 'exec', argument: 0, property: 'Cmd' },
];

/** Library methods that return an instance of another class of the library: module → `Class.method` → class. */
export const LIBRARY_FACTORIES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  // `new Docker()` is the module's default export.
  dockerode: { 'default.getContainer': 'Container', 'default.createContainer': 'Container' },
};

// ─── Logs and the secrets that must not reach them ──────────────────────────────────────────────

/**
 * The level methods loggers share: `console.*`, winston, pino, bunyan, loglevel, log4js, Python `logging` and its
 * `Logger`s. A call of one on a receiver named like a logger (see `LOGGER_NAME`) writes a log line: a `log` sink.
 */
export const LOG_METHODS = new Set(['log', 'info', 'warn', 'warning', 'error', 'debug', 'trace', 'fatal', 'critical', 'exception', 'verbose', 'silly', 'notice']);

/** Receivers that are loggers by name: `console`, `logger`, `this.logger`, `log`, `LOGGER`, `appLogger`, `logging`. */
export const LOGGER_NAME = /^(console|logging|log|_?logger|[a-z]\w*Logger|[A-Z_]*LOGGER|LOG)$/;

/** Words that make a name a credential: `API_KEY`, `dbPassword`, `client_secret`, `authToken`, `passphrase`. */
const SECRET_WORDS = new Set(['password', 'passwd', 'pwd', 'passphrase', 'secret', 'token', 'apikey', 'credential', 'credentials', 'privatekey']);
/** A secret word before one of these names where the secret is or what it is called, not the secret (`TOKEN_URL`). */
const NOT_SECRET_TAIL = new Set([
  'url', 'uri', 'path', 'file', 'dir', 'endpoint', 'host', 'header', 'name', 'type', 'id', 'ids', 'count', 'limit', 'length', 'size',
  'env', 'var', 'field', 'prefix', 'expiry', 'expires', 'expiration', 'ttl', 'hint', 'set', 'present', 'configured', 'provided',
  'usage', 'mode', 'kind', 'format', 'required', 'enabled', 'hash', 'hashed', 'digest', 'scope', 'scopes', 'policy', 'rotation',
]);
/** Tokens that are not credentials: a page cursor, a model's token budget, an MCP progress token. */
const NOT_SECRET_HEAD = new Set(['page', 'next', 'continuation', 'sync', 'cursor', 'max', 'input', 'output', 'completion', 'prompt', 'total', 'csrf', 'progress', 'idempotency', 'resume']);

/** The words of an identifier: `dbPassword` → db, password; `OPENAI_API_KEY` → openai, api, key. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());
}

/**
 * Whether a variable, setting or parameter name says it holds a credential. `key` counts after `api`, `secret`,
 * `private`, `access`, `signing`, `encryption`, `master`, or as the last word of an upper-case setting (`STRIPE_KEY`);
 * alone it is a map key or a cache key. Names that say where a secret is or what it is called (`TOKEN_URL`,
 * `apiKeyHeader`, `passwordHash`) and tokens that are not credentials (`pageToken`, `max_tokens`) are not secrets.
 */
export function isSecretName(name: string): boolean {
  const words = nameWords(name);
  const joined = words.map((word, i) => (word === 'key' && i > 0 ? `${words[i - 1]}key` : word));
  const at = joined.findIndex((word, i) => {
    if (SECRET_WORDS.has(word)) return !NOT_SECRET_HEAD.has(words[i - 1] ?? '');
    if (word.endsWith('key') && ['apikey', 'secretkey', 'privatekey', 'accesskey', 'signingkey', 'encryptionkey', 'masterkey', 'clientkey', 'servicekey'].includes(word)) return true;
    return words[i] === 'key' && i === words.length - 1 && i > 0 && /^[A-Z0-9_]+$/.test(name);
  });
  if (at === -1) return false;
  return !words.slice(at + 1).some((word) => NOT_SECRET_TAIL.has(word));
}

// ─── Who is calling: identities, owners and caller-stated roles ─────────────────────────────────

/**
 * Properties that hold the authenticated caller on a handler's request context: the MCP SDK's `extra.authInfo` and
 * `extra.sessionId`, Express/Fastify `req.user`/`req.auth`/`req.session`, Python `ctx.request_context`, `ctx.client_id`.
 */
export const IDENTITY_PROPERTY = /^(authInfo|auth_info|auth|user|currentUser|current_user|principal|identity|claims|session|sessionId|session_id|request_context|client_id|clientId|access_token)$/;

/** Objects a handler receives that hold the request context (not the tool's arguments): `extra`, `ctx`, `req`. */
export const CONTEXT_OBJECT = /^(extra|ctx|context|req|request|c|session|info|meta|_extra|self)$/;

/** Functions that return the authenticated caller: `getCurrentUser()`, `get_access_token()`, `requireUser(ctx)`. */
export const IDENTITY_CALL = /^(get_?)?(current_?)?(user|session|identity|principal|caller|auth_?info|access_?token)$|^(require|authenticated|whoami|who_?am_?i)(_?user|_?session|_?caller)?$|^get(Current|Authenticated)?(User|Caller|Principal|Identity|Session|AuthInfo)$/i;

/**
 * Tool parameters that say whose data a call is about: a user, tenant, account, organisation, customer, owner or
 * workspace id (or the user's e-mail). `repo`, `project` or `owner`-of-a-repository names are not counted: they name a
 * resource of a third-party API the user's own token scopes.
 */
export const OWNER_PARAMETER = /^(user|user_?id|userid|uid|tenant|tenant_?id|account_?id|org_?id|organi[sz]ation_?id|customer|customer_?id|owner_?id|member_?id|employee_?id|patient_?id|workspace_?id|user_?email|user_?name|username|for_?user|target_?user(_?id)?|as_?user)$/i;

/** Tool parameters that state the caller's privilege: `role`, `isAdmin`, `admin`, `permissions`, `scope`. */
export const ROLE_PARAMETER = /^(role|roles|user_?role|access_?level|permission|permissions|scope|scopes|is_?admin|admin|is_?super_?user|superuser|is_?root|privileged|elevated|sudo|as_?admin|is_?staff|bypass_?auth)$/i;

/** The values of a role parameter that grant more: `role === 'admin'`, `'owner' in scopes`. */
export const PRIVILEGED_VALUE = /^(admin|administrator|owner|root|superuser|super_?admin|staff|elevated|privileged|write|all|\*)$/i;

/**
 * Calls that authorise the caller for what follows: `requireScope(auth, 'admin')`, `assert_member(token, org)`,
 * `ensureCanAccess(...)`. Given the identity, they are a check of it, whichever argument names the object.
 */
export const AUTHORIZING_CALL = /^(require|assert|ensure|check|verify|authori[sz]e|can|enforce|guard)([A-Z_]|$)/;
