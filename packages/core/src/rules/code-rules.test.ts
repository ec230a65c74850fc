// Unit tables for the code rules: each rule is a filter over analyzer flows and facts, so these tables pin down the
// filter (which origins, sinks, compositions, sanitizers and annotations fire) independently of the analyzers.
import { describe, expect, test } from 'vitest';
import type { CodeFact, TaintFlow, ToolDefinition } from '../scan/model.js';
import type { FindingInput, Rule, RuleContext } from './create-rule.js';
import { getRule } from './index.js';

const at = { file: 'src/index.ts', line: 10, column: 3 };

type FlowOverrides = Partial<Omit<TaintFlow, 'sink'>> & { sink: Partial<TaintFlow['sink']> };

function flow({ sink, ...overrides }: FlowOverrides): TaintFlow {
  return {
    origin: { kind: 'tool-input', tool: 'run', param: 'value' },
    composition: 'embedded',
    steps: [],
    sanitizers: [],
    crossFile: false,
    ...overrides,
    sink: { kind: 'command', callee: 'exec', location: at, snippet: 'exec(cmd)', ...sink },
  };
}

function tool(name: string, annotations?: Record<string, unknown>): ToolDefinition {
  return { kind: 'tool', name, parameters: [], location: at, extractor: 'mcp-sdk', ...(annotations ? { annotations } : {}) };
}

function run(ruleId: string, input: { flows?: TaintFlow[]; facts?: CodeFact[]; tools?: ToolDefinition[] }): FindingInput[] {
  const rule: Rule = getRule(ruleId)!;
  expect(rule, ruleId).toBeDefined();
  const reported: FindingInput[] = [];
  const context: RuleContext = {
    mode: 'fast',
    workspace: { name: 'x', target: { kind: 'directory', input: '.', path: '.' } },
    files: [],
    manifests: [],
    tools: input.tools ?? [tool('run')],
    modelTexts: [],
    flows: input.flows ?? [],
    facts: input.facts ?? [],
    report: (finding) => reported.push(finding),
  };
  rule.check(context);
  return reported;
}

const severities = (findings: FindingInput[]) => findings.map((finding) => finding.severity ?? 'default');

describe('secret-in-tool-result', () => {
  test('a tool whose description says it returns the environment is reported at medium', () => {
    const env = flow({ origin: { kind: 'env', detail: 'process.env' }, sink: { kind: 'tool-result', tool: 'get_env' } });
    const described = (description: string): ToolDefinition => ({ ...tool('get_env'), description });
    expect(severities(run('secret-in-tool-result', { flows: [env], tools: [described('Returns all environment variables, for debugging')] }))).toEqual(['medium']);
    expect(severities(run('secret-in-tool-result', { flows: [env], tools: [described('Platform and runtime details')] }))).toEqual(['high']);
  });
});

describe('flow rules', () => {
  test.each([
    ['command-injection', flow({ sink: { shell: true } }), ['critical']],
    ['command-injection', flow({ sink: { shell: false, callee: 'execFile' } }), ['high']],
    ['command-injection', flow({ sanitizers: ['execFile-argv'], sink: {} }), []],
    ['command-injection', flow({ composition: 'whole', sink: {} }), []],
    ['command-injection', flow({ origin: { kind: 'constant' }, sink: {} }), []],
    ['unrestricted-shell-tool', flow({ composition: 'whole', sink: {} }), ['medium']],
    ['code-injection', flow({ sink: { kind: 'code', callee: 'eval' } }), ['critical']],
    ['code-injection', flow({ composition: 'whole', sink: { kind: 'code', callee: 'eval' } }), ['high']],
    ['code-injection', flow({ composition: 'whole', sink: { kind: 'deserialize', callee: 'pickle.loads' } }), ['critical']],
    ['path-traversal', flow({ sink: { kind: 'file-read', callee: 'readFile' } }), ['high']],
    ['path-traversal', flow({ sink: { kind: 'file-read' }, sanitizers: ['realpath-containment'] }), []],
    ['path-traversal', flow({ composition: 'whole', sink: { kind: 'file-read' } }), []],
    ['unrestricted-filesystem-tool', flow({ composition: 'whole', sink: { kind: 'file-write', callee: 'writeFile' } }), ['medium']],
    ['unrestricted-filesystem-tool', flow({ composition: 'whole', sink: { kind: 'file-read', callee: 'readFile' } }), ['low']],
    ['ssrf', flow({ composition: 'whole', sink: { kind: 'network', callee: 'fetch' } }), ['medium']],
    ['ssrf', flow({ sink: { kind: 'network' }, sanitizers: ['fixed-host'] }), []],
    ['sql-injection', flow({ sink: { kind: 'sql', callee: 'db.query' } }), ['high']],
    // Sources beyond the tool's input: an exposed route's request is anyone's, whole or not; so is a remote answer.
    ['command-injection', flow({ origin: { kind: 'http-request', detail: 'req.query.command' }, composition: 'whole', sink: { role: 'program', shell: false } }), ['critical']],
    ['command-injection', flow({ origin: { kind: 'remote-response', detail: 'authorization URL' }, composition: 'whole', sink: { role: 'os-open', callee: 'open' } }), ['critical']],
    ['path-traversal', flow({ origin: { kind: 'http-request', detail: 'req.params.file' }, composition: 'whole', sink: { kind: 'file-read' } }), ['critical']],
    // argv roles: shell code and the OS opener are command injection, an option position is argument injection.
    ['command-injection', flow({ composition: 'whole', sink: { role: 'os-open', callee: 'open' } }), ['high']],
    ['command-injection', flow({ sink: { role: 'shell-code', shell: true, callee: 'spawn' } }), ['critical']],
    ['command-injection', flow({ composition: 'whole', sink: { role: 'option', callee: 'spawn', program: 'git' } }), []],
    ['argument-injection', flow({ composition: 'whole', sink: { role: 'option', callee: 'spawn', program: 'git' } }), ['high']],
    ['argument-injection', flow({ composition: 'whole', sanitizers: ['execFile-argv'], sink: { role: 'option', callee: 'spawn', program: 'git' } }), ['high']],
    ['argument-injection', flow({ composition: 'whole', sanitizers: ['no-leading-dash'], sink: { role: 'option', callee: 'spawn', program: 'git' } }), []],
    ['argument-injection', flow({ composition: 'whole', sink: { role: 'operand', callee: 'spawn', program: 'git' }, sanitizers: ['execFile-argv'] }), []],
    // A guard protects only what it proves: path containment does not make a command line safe.
    ['command-injection', flow({ sanitizers: ['path-containment'], sink: { shell: true } }), ['critical']],
    ['unrestricted-shell-tool', flow({ composition: 'whole', sink: { role: 'os-open', callee: 'open' } }), []],
    ['sql-injection', flow({ composition: 'whole', sink: { kind: 'sql' } }), []],
    ['sensitive-data-exfiltration', flow({ origin: { kind: 'env', detail: 'process.env' }, sink: { kind: 'network-send', callee: 'fetch' } }), ['critical']],
    ['sensitive-data-exfiltration', flow({ origin: { kind: 'env' }, sink: { kind: 'network', callee: 'fetch' } }), ['high']],
    ['sensitive-data-exfiltration', flow({ sink: { kind: 'network-send' } }), []],
    ['hardcoded-exfil-endpoint', flow({ sink: { kind: 'network-send', target: 'https://webhook.site/abc' } }), ['default']],
    ['hardcoded-exfil-endpoint', flow({ sink: { kind: 'network-send', target: 'https://discord.com/api/webhooks/1/x' } }), ['default']],
    ['hardcoded-exfil-endpoint', flow({ sink: { kind: 'network-send', target: 'https://discord.com/api/v10/channels' } }), []],
    ['hardcoded-exfil-endpoint', flow({ sink: { kind: 'network-send', target: 'https://api.weather.gov/points' } }), []],
    ['hardcoded-exfil-endpoint', flow({ sink: { kind: 'email', target: 'x@evil.test', snippet: "sendMail({ to, bcc: 'x@evil.test' })" } }), ['default']],
    ['decoded-payload-execution', flow({ origin: { kind: 'decoded-constant', detail: 'curl x | sh' }, sink: {} }), ['default']],
    // A tool result: the whole environment is exposed to the model; a tool's own input echoed back is not a secret.
    ['secret-in-tool-result', flow({ origin: { kind: 'env', detail: 'process.env' }, sink: { kind: 'tool-result', tool: 'run' } }), ['high']],
    ['secret-in-tool-result', flow({ sink: { kind: 'tool-result', tool: 'run' } }), []],
    ['secret-in-tool-result', flow({ origin: { kind: 'sensitive-file', detail: '~/.ssh/config' }, sink: { kind: 'tool-result' } }), []],
  ] as const)('%s on %j → %j', (ruleId, input, expected) => {
    expect(severities(run(ruleId, { flows: [input as TaintFlow] }))).toEqual(expected);
  });

  test('annotations decide the excessive-capability severity', () => {
    const shell = flow({ composition: 'whole', sink: {} });
    expect(severities(run('unrestricted-shell-tool', { flows: [shell], tools: [tool('run', { destructiveHint: true })] }))).toEqual([]);
    expect(severities(run('unrestricted-shell-tool', { flows: [shell], tools: [tool('run', { readOnlyHint: true })] }))).toEqual(['high']);
  });
});

describe('fact rules', () => {
  const fact = (kind: CodeFact['kind'], detail?: string, snippet = 'x'): CodeFact => ({ kind, location: at, snippet, ...(detail ? { detail } : {}) });

  test.each([
    ['http-transport-exposed', [fact('mcp-http-transport'), fact('http-listen', 'default')], 1],
    ['http-transport-exposed', [fact('mcp-http-transport'), fact('http-listen', '0.0.0.0')], 1],
    ['http-transport-exposed', [fact('mcp-http-transport'), fact('http-listen', '127.0.0.1')], 0],
    ['http-transport-exposed', [fact('mcp-http-transport'), fact('http-listen', '0.0.0.0'), fact('auth-middleware')], 0],
    ['http-transport-exposed', [fact('http-listen', '0.0.0.0')], 0],
    // A metrics server on all interfaces beside an MCP transport bound to loopback in its own file.
    ['http-transport-exposed', [fact('mcp-http-transport'), fact('http-listen', '127.0.0.1'), { ...fact('http-listen', 'default'), location: { ...at, file: 'src/metrics.ts' } }], 0],
    ['http-transport-exposed', [fact('mcp-http-transport'), { ...fact('http-listen', 'default'), location: { ...at, file: 'src/main.ts' } }], 1],
    ['missing-origin-validation', [fact('mcp-http-transport')], 1],
    ['missing-origin-validation', [fact('mcp-http-transport'), fact('origin-check')], 0],
    // A check only guards the servers whose modules load it.
    ['missing-origin-validation', [{ ...fact('mcp-http-transport'), loads: ['src/index.ts', 'src/app.ts'] }, { ...fact('origin-check'), location: { ...at, file: 'src/app.ts' } }], 0],
    ['missing-origin-validation', [{ ...fact('mcp-http-transport'), loads: ['src/index.ts'] }, { ...fact('origin-check'), location: { ...at, file: 'src/other-server.ts' } }], 1],
    ['cors-wildcard', [fact('cors-wildcard')], 1],
    ['tls-verification-disabled', [fact('tls-verification-disabled', undefined, 'rejectUnauthorized: false')], 1],
    ['decoded-payload-execution', [fact('dynamic-require', 'decoded: child_process')], 1],
    ['decoded-payload-execution', [fact('dynamic-require', undefined, 'import(pluginPath)')], 0],
  ] as const)('%s with %j facts → %d findings', (ruleId, facts, count) => {
    expect(run(ruleId, { facts: [...facts] })).toHaveLength(count);
  });

  test('CORS * beside a credential check a page cannot send is low', () => {
    expect(severities(run('cors-wildcard', { facts: [fact('cors-wildcard'), fact('mcp-http-transport')] }))).toEqual(['medium']);
    expect(severities(run('cors-wildcard', { facts: [fact('cors-wildcard'), fact('mcp-http-transport'), fact('auth-middleware', 'authorization')] }))).toEqual(['low']);
  });

  test('an HTTP route is critical when anyone can reach it, lower on loopback behind a token and an Origin check', () => {
    const fromRoute = (composition: TaintFlow['composition']) =>
      flow({ origin: { kind: 'http-request', detail: 'req.query.command' }, composition, steps: [{ file: 'src/index.ts', line: 3, note: 'request to GET /run', kind: 'http-request' }], sink: { role: 'program', shell: false } });
    const protectedRoute = [fact('http-listen', '127.0.0.1'), fact('auth-middleware', 'authorization'), fact('origin-check', 'origin')];
    expect(severities(run('command-injection', { flows: [fromRoute('whole')], facts: [fact('http-listen', 'default')] }))).toEqual(['critical']);
    expect(severities(run('command-injection', { flows: [fromRoute('whole')], facts: protectedRoute }))).toEqual(['low']);
    expect(severities(run('command-injection', { flows: [fromRoute('whole')], facts: protectedRoute.slice(0, 2) }))).toEqual(['critical']);
    // Another server of the package (a UI on all interfaces, in another file) does not expose the route's own server.
    const elsewhere = { ...fact('http-listen', 'default'), location: { ...at, file: 'src/ui.ts' } };
    expect(severities(run('command-injection', { flows: [fromRoute('whole')], facts: [...protectedRoute, elsewhere] }))).toEqual(['low']);
  });

  test('process-wide TLS disabling is high, a single client is medium', () => {
    expect(severities(run('tls-verification-disabled', { facts: [fact('tls-verification-disabled', undefined, "process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0'")] }))).toEqual(['high']);
    expect(severities(run('tls-verification-disabled', { facts: [fact('tls-verification-disabled', undefined, 'new Agent({ connect: { rejectUnauthorized: false } })')] }))).toEqual(['medium']);
  });
});

