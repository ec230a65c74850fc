import type { ArgvRole, SourceKind } from './analysis/catalog.js';

// The data model of a scan, shared by every stage: targets → workspace → inventory → analysis → findings → report.
// Everything here is plain data (JSON-serialisable) except where a field says otherwise, because reports travel
// over HTTP and into worker threads.

export type ScanMode = 'fast' | 'deep';

export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info';

/** The thresholds a run can fail at (`--fail-on`, svc.config.json `failOn`): a severity and worse, or never. */
export const FAIL_ON_LEVELS = ['critical', 'high', 'medium', 'low', 'info', 'never'] as const;
export type FailOnLevel = (typeof FAIL_ON_LEVELS)[number];
export const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info'];

/** Fixed category slugs: they appear in every finding and CI users filter on them. */
export const CATEGORIES = [
  'tool-poisoning',
  'hidden-characters',
  'tool-shadowing',
  'exfiltration',
  'command-injection',
  'code-injection',
  'path-traversal',
  'ssrf',
  'sql-injection',
  'secrets',
  'malicious-install',
  'obfuscation',
  'insecure-transport',
  'tls-disabled',
  'excessive-capability',
  'supply-chain',
  'suppression',
  'authorization',
] as const;
export type Category = (typeof CATEGORIES)[number];

// ─── Targets ────────────────────────────────────────────────────────────────────────────────────

/** Where a target came from when it was expanded out of an MCP client config file. */
export interface ConfigOrigin {
  configPath: string;
  client: McpClient;
  serverName: string;
  /** The 1-based line of the server's entry in the config file. */
  line?: number;
  /** The launch command as configured (`npx`, `uvx`, `node`, `python` …) and its arguments, for supply-chain rules. */
  command?: string;
  args?: string[];
  url?: string;
  /** Names of the environment variables the config sets (values are never copied into reports). */
  envKeys?: string[];
}

export type McpClient = 'claude-desktop' | 'claude-code' | 'cursor' | 'vscode' | 'windsurf' | 'unknown';

/** What the user asked to scan, parsed but not yet fetched. */
export type ScanTarget =
  | { kind: 'directory'; input: string; path: string; origin?: ConfigOrigin }
  | { kind: 'npm'; input: string; name: string; spec: string; origin?: ConfigOrigin }
  | { kind: 'pypi'; input: string; name: string; version?: string; origin?: ConfigOrigin }
  | { kind: 'git'; input: string; url: string; ref?: string; origin?: ConfigOrigin }
  /** `headers`: a config's request headers as written (`${env:VAR}` unexpanded); never copied into a report. */
  | { kind: 'remote'; input: string; url: string; origin?: ConfigOrigin; headers?: Record<string, string> }
  | { kind: 'config'; input: string; path: string };

export type TargetKind = ScanTarget['kind'];

/** A fetched target: files on disk, read-only from here on. */
export interface Workspace {
  target: ScanTarget;
  /** Directory that holds the project's files (for packages: the unpacked package root). */
  root: string;
  name: string;
  version?: string;
  /** Registry metadata the source learned while fetching (used by deep mode and supply-chain rules). */
  metadata?: PackageMetadata;
  /** Removes any temp dir the source created. Idempotent; a no-op for local directories. */
  dispose(): Promise<void>;
}

export interface PackageMetadata {
  registry: 'npm' | 'pypi' | 'git';
  publishedAt?: string;
  /** When the package's first version was published (npm `time.created`): a squat is usually days old. */
  firstPublishedAt?: string;
  /** How many versions the registry lists for the package. */
  versionCount?: number;
  /** The repository URL the published manifest names. */
  repository?: string;
  maintainers?: string[];
  tarballUrl?: string;
  integrity?: string;
  /** Commit the git source checked out. */
  commit?: string;
}

// ─── Inventory ──────────────────────────────────────────────────────────────────────────────────

export type Language = 'javascript' | 'typescript' | 'python';

/**
 * Why a file is analysed the way it is. `bundle` (minified or single-file builds) and `vendored`
 * (node_modules, site-packages, vendor/) are inventoried but not parsed for dataflow: see docs/scanning.md.
 */
export type FileRole = 'source' | 'bundle' | 'vendored' | 'manifest' | 'config' | 'other';

export interface SourceFile {
  /** Path relative to the workspace root, with forward slashes: what reports show. */
  path: string;
  absPath: string;
  language?: Language;
  role: FileRole;
  size: number;
  /** UTF-8 text; absent for binary files and files over the size limit. */
  text?: string;
}

export interface Manifest {
  kind: 'package.json' | 'pyproject.toml' | 'setup.py' | 'requirements.txt' | 'mcp-config' | 'server.json';
  path: string;
  /** The parsed document (JSON or TOML), or the raw text for setup.py / requirements.txt. */
  data: unknown;
}

// ─── What the model sees ────────────────────────────────────────────────────────────────────────

export interface SourceLocation {
  file: string;
  line: number;
  column: number;
  endLine?: number;
  endColumn?: number;
}

export interface ToolParameter {
  name: string;
  type?: string;
  description?: string;
  enum?: string[];
  default?: unknown;
  required: boolean;
  /** A regex the schema constrains the value with (zod `.regex`, JSON schema `pattern`, pydantic `pattern`). */
  pattern?: string;
  /** A URL/email/uuid style format constraint, when declared. */
  format?: string;
  /**
   * An upper bound the schema declares on the value (JSON schema `maximum`/`exclusiveMaximum`, zod `.max()`/`.lte()`,
   * pydantic `le`/`lt`) or on its length (`maxLength`, `max_length`).
   */
  maximum?: number;
}

export type ExtractorId =
  | 'mcp-sdk'
  | 'mcp-sdk-lowlevel'
  | 'fastmcp-ts'
  | 'tool-map'
  | 'class-tool' // a class per tool (mcp-framework `extends MCPTool`)
  | 'mcp-use'
  | 'openapi' // one tool per operation of an OpenAPI document shipped in the package
  | 'python-fastmcp'
  | 'python-lowlevel'
  | 'python-jsonrpc'
  | 'manifest'
  | 'remote';

/** A tool, prompt, resource or the server instructions: the text an MCP client hands to the model. */
export interface ToolDefinition {
  kind: 'tool' | 'prompt' | 'resource' | 'instructions';
  name: string;
  title?: string;
  description?: string;
  parameters: ToolParameter[];
  /** MCP tool annotations (readOnlyHint, destructiveHint, idempotentHint, openWorldHint, title). */
  annotations?: Record<string, unknown>;
  /** For resources: the URI or URI template. */
  uri?: string;
  location: SourceLocation;
  extractor: ExtractorId;
  /** Opaque id linking the tool to its handler inside the language analyzer (never serialised). */
  handlerId?: string;
  /** The description is not in the code: it is fetched at run time, so it can change after the user approved the tool. */
  descriptionSource?: 'network';
  /**
   * What the tool's handler can do, inferred from its code and the package functions it calls (see
   * docs/capabilities.md). Absent when the tool has no handler the analyzers found; empty when it does nothing listed.
   */
  capabilities?: Capability[];
}

/**
 * What a tool's code can do, whatever the origin of the values involved (a constant path counts): files it reads,
 * writes or deletes, programs it runs, hosts it talks to, the environment, credential stores, persistence locations
 * (shell rc files, crontab, launch agents, `authorized_keys` …) and security settings it switches off.
 */
export type CapabilityKind =
  | 'file-read'
  | 'file-write'
  | 'file-delete'
  | 'process'
  | 'network'
  | 'env'
  | 'credential-read'
  | 'persistence'
  | 'security-off';

export interface Capability {
  kind: CapabilityKind;
  /** Short: the callee, and the path, program or host when it is a constant (`fs.appendFileSync ~/.bashrc`). */
  detail: string;
  /** The constant path, URL/host or command text involved, when known. */
  target?: string;
  location: SourceLocation;
}

/** One text field the model reads, addressed so findings can point at it. */
export interface ModelText {
  tool: string;
  toolKind: ToolDefinition['kind'];
  /** `description`, `title`, `name`, `parameters.<name>.description`, `parameters.<name>.default`, … */
  field: string;
  text: string;
  location: SourceLocation;
}

/**
 * What connecting to a remote endpoint showed about its transport and access control (scan/remote/posture.ts); each
 * kind has a rule of its own. `url` is the endpoint as reports show it (credentials removed), `detail` the evidence.
 */
export interface RemoteObservation {
  kind: 'plaintext-http' | 'no-auth' | 'session-id-in-url' | 'foreign-origin-accepted' | 'cors-credentials-wildcard' | 'tls-error';
  url: string;
  detail: string;
}

// ─── Code facts from the language analyzers ─────────────────────────────────────────────────────

/** What a sink does with its dangerous argument. */
export type SinkKind =
  | 'command' // shell or process execution
  | 'code' // eval, Function, vm, pickle, yaml.load, exec
  | 'deserialize' // pickle / unsafe yaml / marshal: code execution through data
  | 'file-read'
  | 'file-write'
  | 'network' // outbound request: the tainted argument is the URL/host
  | 'network-send' // outbound request: the tainted argument is the body/payload
  | 'sql'
  | 'email' // outbound mail: recipient or body
  | 'tool-result' // what a tool handler returns: read by the model and shown to whoever drives it
  | 'allocation' // a size or count: loop bounds, `Buffer.alloc(n)`, `'x'.repeat(n)`, `range(n)`, `[0] * n`
  | 'regex' // the text of a regular expression: `new RegExp(x)`, `re.compile(x)` (catastrophic backtracking)
  | 'log'; // a log line: `console.*`, a logger's level methods, Python `logging`/`logger.*` (kept on disk, shipped to log services)

/** Where a value reaching a sink comes from. */
export type OriginKind =
  | 'tool-input' // a handler parameter the model controls
  | 'http-request' // query, body, path parameters or headers of a request to the package's own HTTP routes
  | 'remote-response' // what a server the package talks to answered: a fetched document, OAuth metadata, MCP results
  | 'env' // process.env / os.environ (whole object or a key)
  | 'sensitive-file' // contents of ~/.ssh, ~/.aws, .env, browser profiles, keychains …
  | 'decoded-constant' // a literal decoded at run time (base64, hex, char codes, reversed, XOR-ed, rot13, chains of them)
  | 'constant'
  | 'unknown';

export interface FlowStep {
  file: string;
  line: number;
  /** Short human text: "assigned to cmd", "passed to runQuery(sql)", "returned from buildUrl". */
  note: string;
  /** Set on the first step of a flow: where the value came from (DESIGN.md "A finding's flow starts with its source step"). */
  kind?: SourceKind;
  /** Set on a step where the value was checked by a check that does not hold (a weak guard of the catalogue). */
  guard?: string;
}

/**
 * A value of some origin reaching a sink argument. Language analyzers produce these; the code rules only filter them.
 * A flow whose `sanitizers` is non-empty was recognised as guarded and is kept so judges can explain the dismissal.
 */
export interface TaintFlow {
  sink: {
    kind: SinkKind;
    /** The callee as written: `child_process.exec`, `subprocess.run`, `cursor.execute`, `fetch`. */
    callee: string;
    location: SourceLocation;
    snippet: string;
    /** For command sinks: true when a shell interprets the string (exec, shell=True, spawn with shell: true). */
    shell?: boolean;
    /** The destination when it is a constant: URL or host for network sinks, the address for email recipients. */
    target?: string;
    /** For command sinks given an argv: what the tainted element is to the program (see catalog.ts `classifyArgv`). */
    role?: ArgvRole;
    /** For command sinks: the program when it is a constant (`git`, `kubectl`). */
    program?: string;
    /** For network-send sinks: a messaging API that fetches the links in the message to preview them. */
    linkPreviews?: boolean;
    /** For tool-result sinks: the tool whose result it is, when known. */
    tool?: string;
  };
  origin: {
    kind: OriginKind;
    /** For tool-input: the tool and parameter the value comes from. */
    tool?: string;
    param?: string;
    /** For env / sensitive-file / decoded-constant: what exactly (`process.env`, `~/.ssh/id_rsa`, the decoded text). */
    detail?: string;
  };
  /** `whole`: the sink argument is the origin value itself; `embedded`: it was concatenated / formatted into a larger string. */
  composition: 'whole' | 'embedded';
  steps: FlowStep[];
  /** Recognised guards on the path: `execFile-argv`, `realpath-containment`, `url-allowlist`, `parameterised-sql`, `schema-enum`, `schema-pattern`, … */
  sanitizers: string[];
  /** True when the path crosses a file boundary (imports); only produced in deep mode beyond one hop. */
  crossFile: boolean;
}

/** Non-dataflow facts the analyzers find in code, for the transport/TLS/obfuscation style rules. */
export type CodeFactKind =
  | 'tls-verification-disabled' // rejectUnauthorized: false, NODE_TLS_REJECT_UNAUTHORIZED=0, verify=False, ssl.CERT_NONE
  | 'http-listen' // an HTTP server binding: detail = host ('0.0.0.0', '::', '127.0.0.1' or 'default')
  | 'cors-wildcard' // Access-Control-Allow-Origin: * or cors() with origin '*' / true
  | 'auth-middleware' // some authentication check guards the HTTP transport (bearer check, auth middleware)
  | 'origin-check' // Origin / Host header validation, DNS rebinding protection enabled
  | 'mcp-http-transport' // StreamableHTTPServerTransport / SSEServerTransport / mcp.run(transport="sse"|"streamable-http")
  | 'encoded-blob' // a long base64/hex literal
  | 'dynamic-require' // require/import of a computed or decoded specifier
  | 'caller-identity' // a tool handler reads who is calling (`extra.authInfo`, `req.user`, `get_access_token()`): detail = what it reads
  | 'caller-stated-role'; // a tool handler grants a privilege on a role or admin flag the caller passes: detail = the test

/**
 * Per tool handler facts carry the tool and the parameters they are about: for `caller-identity`, the parameters the
 * handler compares with the identity or hands to one call beside it (the object is scoped to the caller); for
 * `caller-stated-role`, the parameter the privilege test reads.
 */
export interface HandlerFactScope {
  tool: string;
  params: string[];
}

export interface CodeFact {
  kind: CodeFactKind;
  location: SourceLocation;
  snippet: string;
  detail?: string;
  /**
   * For `mcp-http-transport`: the package files its module loads (itself and its relative imports, transitively), when
   * the analyzer can tell. A check in a module the transport's server never loads cannot guard it.
   */
  loads?: readonly string[];
  /** For the per-handler kinds (`caller-identity`, `caller-stated-role`). */
  handler?: HandlerFactScope;
}

// ─── Findings and the report ────────────────────────────────────────────────────────────────────

export type Verdict = 'confirm' | 'dismiss' | 'uncertain';

export interface JudgeVote {
  judge: string;
  verdict: Verdict;
  reason: string;
}

export interface Finding {
  /** Stable across runs for the same problem: rule id + location/tool + evidence hash. */
  id: string;
  ruleId: string;
  category: Category;
  severity: Severity;
  /** 0..1. Rules set a prior; in deep mode the judge panel's consensus sets the final value. */
  confidence: number;
  message: string;
  /** The text or code that shows the problem (hidden characters decoded and shown). */
  evidence: string;
  /** Code location, when the finding is about code or a file. */
  location?: SourceLocation;
  /** Tool and field, when the finding is about what the model reads. */
  tool?: { name: string; kind: ToolDefinition['kind']; field: string };
  /** The dataflow path, for code rules. */
  flow?: FlowStep[];
  /** Deep mode: the panel's votes and consensus. */
  votes?: JudgeVote[];
  consensus?: Verdict;
  /** Set on the findings of `ScanReport.suppressed`: who silenced it and why. */
  suppression?: Suppression;
  /** The source lines around `location` (two before, two after), so a reader sees the code without opening it. */
  context?: CodeContext;
  /**
   * Other findings with the same root cause in the same file (an HTTP server with no auth, CORS `*` and no Origin
   * check is one exposure), folded into this one: each keeps its rule, severity, message and place.
   */
  facets?: FindingFacet[];
}

export interface CodeContext {
  /** Line number of `lines[0]`. */
  startLine: number;
  /** As in the file, except that a very long line (minified code) is cut to a window around the finding's column. */
  lines: string[];
}

export interface FindingFacet {
  id: string;
  ruleId: string;
  severity: Severity;
  message: string;
  location?: SourceLocation;
}

/**
 * Why a finding is left out of the results (scan/suppressions.ts): an inline `svc-ignore` comment, the repository's
 * `svc.config.json`, a command-line exclusion, or a baseline entry. Each carries its reason, so a reviewer can audit it.
 */
export interface Suppression {
  kind: 'inline' | 'config' | 'flag' | 'baseline';
  reason: string;
  /** Where it was declared: `src/x.ts:12`, `svc.config.json`, `--exclude-rule`, the baseline file. */
  source: string;
}

export interface ScanTimings {
  /** Milliseconds per stage: fetch, inventory, analyze (parse, extract, dataflow), rules, judges, score, total. */
  [stage: string]: number;
}

/**
 * What kind of gap a problem leaves in the scan; every kind makes the target `partial` (docs/report.md, Coverage):
 * `unparsed` a file the analyzers could not read as code, `over-limit` a file or files left out by the size or count
 * limits, `unreadable` a directory or manifest that could not be read, `failed` an analysis step or rule that broke.
 */
export type ProblemKind = 'unparsed' | 'over-limit' | 'unreadable' | 'failed';

/** Why a code file was left out of the analysis (see scan/scope.ts); the text rules still read it. */
export type ScopeReason = 'declaration' | 'browser-build' | 'dual-build-twin';

export interface ScopedOutFile {
  path: string;
  reason: ScopeReason;
  /** What it is, e.g. the web client's folder or the twin that was analysed instead. */
  detail: string;
}

/**
 * A package whose code uses an MCP server framework but whose tools the extractors did not find: the shape is not one
 * they read, so the tools and their handlers were not analysed (the report must not call that clean).
 */
export interface ExtractionDiagnostic {
  code: 'unrecognised-server-shape';
  /** The framework as imported (`@modelcontextprotocol/sdk`, `mcp-framework`, …). */
  framework: string;
  /** The first file that imports it. */
  path: string;
  detail: string;
}

export interface ParseProblem {
  file: string;
  message: string;
  kind: ProblemKind;
}

/**
 * How much of a target the scan covered. Only a `scanned` target can be called clean: a `partial` one keeps its
 * score with the reasons beside it, a `not-scanned` one (a remote endpoint, a container image) has no score at all.
 */
export type CoverageStatus = 'scanned' | 'partial' | 'not-scanned';

export interface Coverage {
  status: CoverageStatus;
  /** One line per gap, empty when `scanned`: what was not analysed and why. */
  reasons: string[];
}

export interface ScanReport {
  schemaVersion: string;
  generator: { name: 'svc'; version: string };
  target: {
    kind: TargetKind;
    input: string;
    name: string;
    version?: string;
    /** sha256 over the sorted (path, content) pairs of the scanned files. */
    contentHash: string;
    origin?: ConfigOrigin;
    /** Set on a dependency scanned because a thin launcher's entry point loads it (scan/launcher.ts): the launcher. */
    launchedBy?: string;
  };
  mode: ScanMode;
  startedAt: string;
  timings: ScanTimings;
  stats: { files: number; bytes: number; parsedFiles: number; skippedFiles: number };
  tools: Array<Omit<ToolDefinition, 'handlerId'>>;
  /** What the scan found; in deep mode, what the judge panel kept. */
  findings: Finding[];
  /** Deep mode: findings the panel dismissed by majority, with their votes (served at /scan/{id}/consensus). */
  dismissed?: Finding[];
  /** A package with no tool of its own whose entry points load these dependencies: they are scanned as targets too. */
  launches?: Array<{ name: string; spec: string }>;
  /** 0..100; null when the target was not scanned (nothing was looked at, so there is nothing to grade). */
  score: number | null;
  grade: Grade | null;
  counts: Record<Severity, number>;
  /** Files that did not parse, and other non-fatal problems. */
  problems: ParseProblem[];
  coverage: Coverage;
  /** Findings silenced by a suppression (inline, config, flag or baseline), with it; not counted or scored. */
  suppressed?: Finding[];
  /** The repository's svc.config.json, when the target is the user's own code and has one. */
  repoConfig?: { file: string; failOn?: FailOnLevel };
  /** Code files the analyzers did not receive, and why (declarations, browser build output, CommonJS twins). */
  scopedOut?: ScopedOutFile[];
}

export type Grade = 'A' | 'B' | 'C' | 'D' | 'F';
