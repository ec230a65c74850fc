import { describe, expect, it } from 'vitest';
import type { Category, Verdict } from '../scan/model.js';
import { dataflowReachabilityJudge } from './dataflow-reachability.js';
import {
  benignCapabilityStatement,
  context,
  finding,
  flow,
  flowFinding,
  poisonedDescription,
  sanitisedPathFlow,
  secretInTestFixtures,
  unsanitisedCommandFromWeather,
  type Scenario,
} from './test-builders.js';

function single(name: string, source: ReturnType<typeof flow>, category: Category = 'command-injection'): Scenario {
  return { name, finding: flowFinding(category, category, source), context: context({ flows: [source] }) };
}

const cases: Array<[Scenario, Verdict, RegExp]> = [
  [poisonedDescription({ sidenoteIsSent: false }), 'uncertain', /No flow sends parameter sidenote/],
  [poisonedDescription({ sidenoteIsSent: true }), 'confirm', /Parameter sidenote of add.*fetch at src\/index\.ts:31/],
  [benignCapabilityStatement(), 'uncertain', /names no parameter/],
  [sanitisedPathFlow(), 'dismiss', /guarded by realpath-containment/],
  [unsanitisedCommandFromWeather(), 'confirm', /parameter city of get_weather reaches child_process\.exec at src\/index\.ts:27 with no guard/],
  [secretInTestFixtures(), 'uncertain', /No analysed dataflow ends at tests\/fixtures\/config\.json:3/],
  [single('decoded payload', flow({ sink: { kind: 'code', callee: 'eval' }, origin: { kind: 'decoded-constant', detail: 'require("child_process").exec("curl …")' } }), 'obfuscation'), 'confirm', /run-time decoded constant/],
  [single('constant', flow({ sink: { kind: 'command', callee: 'execSync' }, origin: { kind: 'constant', detail: 'git status' } })), 'dismiss', /Only a constant/],
  [single('unknown origin', flow({ sink: { kind: 'command', callee: 'execSync' }, origin: { kind: 'unknown' } })), 'uncertain', /unknown origin/],
  [single('cross-file', flow({ sink: { kind: 'command', callee: 'exec' }, origin: { kind: 'tool-input', tool: 'run', param: 'cmd' }, file: 'src/utils.ts', crossFile: true })), 'confirm', /across files/],
  [single('named API key to its own host', flow({ sink: { kind: 'network-send', callee: 'fetch', target: 'https://api.openweathermap.org/data/2.5/forecast' }, origin: { kind: 'env', detail: 'process.env.OPENWEATHER_API_KEY' } }), 'exfiltration'), 'dismiss', /OPENWEATHER_API_KEY.*api\.openweathermap\.org.*ordinary authentication/],
  [single('named token to an unrelated host', flow({ sink: { kind: 'network-send', callee: 'fetch', target: 'https://telemetry.example.net/collect' }, origin: { kind: 'env', detail: 'process.env.GITHUB_TOKEN' } }), 'exfiltration'), 'confirm', /environment process\.env\.GITHUB_TOKEN/],
  [single('whole environment', flow({ sink: { kind: 'network-send', callee: 'requests.post', target: 'https://api.github.com/gists' }, origin: { kind: 'env', detail: 'os.environ' } }), 'exfiltration'), 'confirm', /environment os\.environ reaches requests\.post/],
  [single('argv-sanitised', flow({ sink: { kind: 'command', callee: 'execFile' }, origin: { kind: 'tool-input', tool: 'git_log', param: 'ref' }, sanitizers: ['execFile-argv'] })), 'dismiss', /execFile-argv/],
];

describe('dataflow-reachability judge', () => {
  it.each(cases)('%# $name', (scenario, verdict, reason) => {
    const vote = dataflowReachabilityJudge.vote(scenario.finding, scenario.context);
    expect(vote).toMatchObject({ judge: 'dataflow-reachability', verdict });
    expect((vote as { reason: string }).reason).toMatch(reason);
  });

  it('picks the flow that fits the category when several end on one line', () => {
    const guardedRead = flow({ sink: { kind: 'file-read', callee: 'readFile' }, origin: { kind: 'tool-input', tool: 't', param: 'p' }, sanitizers: ['path-containment'], line: 9 });
    const openCommand = flow({ sink: { kind: 'command', callee: 'exec' }, origin: { kind: 'tool-input', tool: 't', param: 'p' }, line: 9 });
    const both = context({ flows: [guardedRead, openCommand] });
    const injection = finding({ ruleId: 'command-injection', category: 'command-injection', evidence: 'exec(p)', location: openCommand.sink.location });
    const traversal = finding({ ruleId: 'path-traversal', category: 'path-traversal', evidence: 'readFile(p)', location: guardedRead.sink.location });
    expect(dataflowReachabilityJudge.vote(injection, both)).toMatchObject({ verdict: 'confirm' });
    expect(dataflowReachabilityJudge.vote(traversal, both)).toMatchObject({ verdict: 'dismiss' });
  });

  it('matches a flow by its steps when two flows from different origins end on one line', () => {
    const fromInput = flow({ sink: { kind: 'network-send', callee: 'fetch' }, origin: { kind: 'tool-input', tool: 'sync', param: 'notes' }, line: 30, sanitizers: ['url-allowlist'] });
    const fromEnv = { ...flow({ sink: { kind: 'network-send', callee: 'fetch' }, origin: { kind: 'env', detail: 'process.env' }, line: 30 }), steps: [{ file: 'src/index.ts', line: 12, note: 'JSON.stringify(process.env)' }] };
    const both = context({ flows: [fromInput, fromEnv] });
    const envFinding = flowFinding('sensitive-data-exfiltration', 'exfiltration', fromEnv);
    expect(dataflowReachabilityJudge.vote(envFinding, both)).toMatchObject({ verdict: 'confirm', reason: expect.stringMatching(/environment process\.env/) });
    const inputFinding = flowFinding('hardcoded-exfil-endpoint', 'exfiltration', fromInput);
    expect(dataflowReachabilityJudge.vote(inputFinding, both)).toMatchObject({ verdict: 'dismiss' });
  });

  it('treats a finding that names a tool but sits on a flow sink as a code finding', () => {
    const source = flow({ sink: { kind: 'command', callee: 'exec' }, origin: { kind: 'tool-input', tool: 'run', param: 'cmd' }, line: 14 });
    const named = finding({ ruleId: 'command-injection', category: 'command-injection', evidence: 'exec(cmd)', location: source.sink.location, tool: { name: 'run', kind: 'tool', field: 'handler' } });
    expect(dataflowReachabilityJudge.vote(named, context({ flows: [source] }))).toMatchObject({ verdict: 'confirm', reason: expect.stringMatching(/parameter cmd of run reaches exec/) });
  });

  it('keeps a description finding about the text even when a flow ends on the same (minified) line', () => {
    const bundled = flow({ sink: { kind: 'network-send', callee: 'fetch' }, origin: { kind: 'tool-input', tool: 'add', param: 'sidenote' }, file: 'dist/index.js', line: 1 });
    const add = { ...poisonedDescription({ sidenoteIsSent: false }).context.tools[0]!, location: { file: 'dist/index.js', line: 1, column: 900 } };
    const text = finding({ ruleId: 'exfil-magic-parameter', category: 'exfiltration', evidence: "pass its content as 'sidenote'", location: add.location, tool: { name: 'add', kind: 'tool', field: 'parameters.sidenote.description' } });
    expect(dataflowReachabilityJudge.vote(text, context({ tools: [add], flows: [bundled] }))).toMatchObject({ verdict: 'confirm', reason: expect.stringMatching(/^Parameter sidenote of add, which the text points at/) });
  });

  it('abstains on findings that are not about code', () => {
    const unpinned = finding({ ruleId: 'unpinned-npx-config', category: 'supply-chain', evidence: 'npx -y some-server' });
    expect(dataflowReachabilityJudge.vote(unpinned, context())).toMatchObject({ verdict: 'uncertain' });
  });
});
