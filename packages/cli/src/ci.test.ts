// The CI integrations as shipped: action.yml, its scan script, the GitLab template and the examples in docs/ci.md.
// The YAML is parsed, the action's inputs checked against their use, third-party actions checked for full-SHA pins,
// every `svc` command line parsed by the real program, and both scan scripts run against a real server directory.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommanderError, type Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { createProgram } from './program.js';
import { ensureBuilt, REPO } from './test/build.js';
import { captureIo } from './test/io.js';

const read = (path: string): string => readFileSync(join(REPO, path), 'utf8');
const actionText = read('action.yml');
const action = parseYaml(actionText) as {
  inputs: Record<string, { description: string; default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Array<{ id?: string; uses?: string; run?: string; shell?: string; env?: Record<string, string>; with?: Record<string, string> }> };
};
const scanScript = read('ci/github/scan.sh');
const gitlabText = read('ci/gitlab/svc.gitlab-ci.yml');
const gitlab = parseYaml(gitlabText) as {
  variables: Record<string, string>;
  'svc-scan': { script: string[]; before_script: string[]; artifacts: { when: string; reports: Record<string, string>; paths: string[] } };
};
const docs = read('docs/ci.md');

/** The fenced blocks of docs/ci.md with their language. */
function fences(language: string): string[] {
  return [...docs.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].filter((match) => match[1] === language).map((match) => match[2]!);
}

/** The svc repository as the docs and the GitLab template name it: a placeholder the reader replaces. */
const SVC_PLACEHOLDER = /^your-org\/svc@<svc-commit-sha>$/;
/** `owner/repo[/path]@<40 hex>`, followed on its line by `# vX.Y.Z`. */
const PINNED = /^[\w.-]+\/[\w.-]+(\/[\w./-]+)?@[0-9a-f]{40}$/;

function usesLines(text: string): string[] {
  return [...text.matchAll(/^\s*-?\s*uses:\s*(.*)$/gm)].map((match) => match[1]!.trim());
}

function expectPinned(text: string): void {
  for (const line of usesLines(text)) {
    const [ref, comment] = line.split(/\s+#\s*/);
    if (SVC_PLACEHOLDER.test(ref!)) continue;
    expect(ref, `${line}: third-party actions are pinned to a full commit SHA`).toMatch(PINNED);
    expect(comment ?? '', `${line}: the pinned version is named in a comment`).toMatch(/^v\d+(\.\d+)*\b/);
  }
}

/** Shell words of one command line: quotes and backslash-newline continuations, as sh reads them; `$VAR` expanded. */
function shellWords(line: string, vars: Record<string, string>): string[] {
  const words: string[] = [];
  let word: string | undefined;
  const expand = (text: string): string => text.replace(/\$\{?(\w+|@)\}?/g, (whole, name: string) => vars[name] ?? whole);
  for (const match of line.replace(/\\\n/g, ' ').matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+?)(?=['"]|\s|$)|(\s+)/g)) {
    if (match[4] !== undefined) {
      if (word !== undefined) words.push(word);
      word = undefined;
      continue;
    }
    const piece = match[1] ?? expand(match[2] ?? '') ?? '';
    // An unquoted variable splits into words, as sh does (targets lists).
    if (match[3] !== undefined) {
      const parts = expand(match[3]).split(/\s+/);
      word = (word ?? '') + parts[0];
      for (const part of parts.slice(1)) {
        words.push(word);
        word = part;
      }
    } else {
      word = (word ?? '') + piece;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** Parses `svc …` argv with the real program, every command's action replaced, so nothing runs. */
async function parseSvc(argv: string[]): Promise<{ command: string; options: Record<string, unknown>; args: string[] }> {
  const io = captureIo({});
  const program = createProgram(io, () => {});
  let parsed: { command: string; options: Record<string, unknown>; args: string[] } | undefined;
  for (const command of program.commands) {
    command.action((...received: unknown[]) => {
      const self = received.at(-1) as Command;
      parsed = { command: self.name(), options: self.opts(), args: self.args };
    });
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) throw new Error(`svc ${argv.join(' ')}: ${io.err().trim()}`);
    throw error;
  }
  if (!parsed) throw new Error(`svc ${argv.join(' ')}: no command ran`);
  return parsed;
}

/** Every `svc …` command in a text (shell or YAML `run:`), continuation lines joined. */
function svcCommands(text: string): string[] {
  return [...text.replace(/[ \t]*\\\n\s*/g, ' ').matchAll(/(?:^|[\s;|&(])svc (scan|baseline|rules)\b([^\n;|&#]*)/g)].map((match) => `${match[1]}${match[2]}`.trim());
}

describe('the checks themselves', () => {
  it('catch a tag-pinned action, an unpinned version comment and a command line the CLI refuses', async () => {
    expect(() => expectPinned('      - uses: actions/checkout@v4')).toThrow(/full commit SHA/);
    expect(() => expectPinned(`      - uses: actions/checkout@${'a'.repeat(40)}`)).toThrow(/named in a comment/);
    await expect(parseSvc(shellWords('scan . --fail-on severe', {}))).rejects.toThrow(/argument 'severe' is invalid/);
    await expect(parseSvc(shellWords('scan . --report xml=a.xml', {}))).rejects.toThrow(/--report/);
    expect(svcCommands('run: |\n  svc scan . \\\n    --format github # note\n  svc rules')).toEqual(['scan . --format github', 'rules']);
    expect(shellWords(`scan "a b" 'c d' $T --x="$F"`, { T: 'one two', F: 'f g' })).toEqual(['scan', 'a b', 'c d', 'one', 'two', '--x=f g']);
  });
});

describe('action.yml', () => {
  it('is a composite action on a pinned setup-node with Node 20 or 22, every third-party action pinned by SHA', () => {
    expect(action.runs.using).toBe('composite');
    const setupNode = action.runs.steps.find((step) => step.uses?.startsWith('actions/setup-node@'));
    expect(String(setupNode?.with?.['node-version'])).toMatch(/^(20|22)$/);
    expect(action.runs.steps.some((step) => step.uses?.startsWith('github/codeql-action/upload-sarif@'))).toBe(true);
    expectPinned(actionText);
    for (const step of action.runs.steps) if (step.run !== undefined) expect(step.shell, step.run).toBe('bash');
  });

  it('declares every input it uses and uses every input it declares, each with a description and a default', () => {
    const used = new Set([...actionText.matchAll(/\$\{\{[^}]*?\binputs\.([\w-]+)/g)].map((match) => match[1]!));
    expect([...used].sort()).toEqual(Object.keys(action.inputs).sort());
    for (const [name, input] of Object.entries(action.inputs)) {
      expect(input.description, name).toBeTruthy();
      expect(typeof input.default, `${name} has a string default`).toBe('string');
    }
    expect(Object.keys(action.inputs)).toEqual(
      expect.arrayContaining(['targets', 'fail-on', 'mode', 'sarif-file', 'upload-sarif', 'annotate', 'job-summary']),
    );
    expect(action.inputs.targets!.default).toBe('.');
  });

  it('hands inputs to scripts only through the environment, and the scan script reads exactly those variables', () => {
    for (const step of action.runs.steps) expect(step.run ?? '', 'an input pasted into a script could inject shell code').not.toMatch(/\$\{\{/);
    const scan = action.runs.steps.find((step) => step.id === 'scan')!;
    const passed = Object.keys(scan.env ?? {}).sort();
    const read = [...new Set([...scanScript.matchAll(/SVC_ACTION_(\w+)/g)].map((match) => `SVC_ACTION_${match[1]}`))]
      // The loop over the boolean inputs builds their names from this list.
      .concat(['FAIL_ON_PARTIAL', 'UPLOAD_SARIF', 'ANNOTATE', 'JOB_SUMMARY'].map((name) => `SVC_ACTION_${name}`))
      .filter((name) => name !== 'SVC_ACTION_');
    expect(passed).toEqual([...new Set(read)].sort());
    for (const [name, value] of Object.entries(scan.env ?? {})) expect(value, name).toMatch(/^\$\{\{ inputs\.[\w-]+ \}\}$/);
    for (const output of Object.values(action.outputs)) expect(output.value).toMatch(/^\$\{\{ steps\.scan\.outputs\.[\w-]+ \}\}$/);
  });
});

describe('docs/ci.md', () => {
  it('has GitHub, GitLab and shell examples, and every YAML example parses', () => {
    const yamlBlocks = fences('yaml');
    expect(yamlBlocks.length).toBeGreaterThanOrEqual(4);
    expect(fences('sh').length).toBeGreaterThanOrEqual(3);
    for (const block of yamlBlocks) {
      const documents = parseAllDocuments(block);
      for (const document of documents) expect(document.errors, block).toEqual([]);
    }
  });

  it('pins every action it uses by SHA, and passes the svc action only inputs it declares', () => {
    for (const block of fences('yaml')) expectPinned(block);
    const workflows = fences('yaml').map((block) => parseYaml(block) as { jobs?: Record<string, { steps: Array<{ uses?: string; with?: Record<string, unknown> }> }> });
    const svcSteps = workflows.flatMap((workflow) => Object.values(workflow.jobs ?? {}).flatMap((job) => job.steps)).filter((step) => step.uses !== undefined && SVC_PLACEHOLDER.test(step.uses));
    expect(svcSteps.length).toBeGreaterThan(0);
    for (const step of svcSteps) for (const key of Object.keys(step.with ?? {})) expect(Object.keys(action.inputs)).toContain(key);
  });

  it('documents every input of the action and every variable of the GitLab template', () => {
    for (const name of Object.keys(action.inputs)) expect(docs).toContain(`| \`${name}\` |`);
    for (const name of Object.keys(gitlab.variables)) expect(docs).toContain(`| \`${name}\` |`);
  });

  it('every svc command line in the docs parses with the real CLI', async () => {
    const commands = [...fences('sh'), ...fences('yaml')].flatMap(svcCommands);
    expect(commands.length).toBeGreaterThanOrEqual(5);
    for (const command of commands) await parseSvc(shellWords(command, {}));
    const scan = await parseSvc(shellWords(svcCommands(docs)[0]!, {}));
    expect(scan.options.report).toEqual([
      { format: 'sarif', file: 'svc.sarif' },
      { format: 'junit', file: 'svc-junit.xml' },
      { format: 'markdown', file: 'svc.md' },
    ]);
  });
});

describe('ci/gitlab/svc.gitlab-ci.yml', () => {
  it('publishes the SAST and JUnit reports the scan writes, also when the job fails', async () => {
    const job = gitlab['svc-scan'];
    expect(job.artifacts.when).toBe('always');
    const script = job.script.join('\n');
    const [command] = svcCommands(script.replace(/node "\$SVC_HOME\/packages\/cli\/bin\/svc\.js"/, 'svc'));
    const parsed = await parseSvc(shellWords(command!, { ...gitlab.variables, '@': gitlab.variables.SVC_TARGETS! }));
    expect(parsed.options.report).toEqual([
      { format: 'gitlab-sast', file: job.artifacts.reports.sast },
      { format: 'junit', file: job.artifacts.reports.junit },
    ]);
    expect(parsed.options.failOn).toBe(gitlab.variables.SVC_FAIL_ON);
    expect(job.artifacts.paths.sort()).toEqual([job.artifacts.reports.sast, job.artifacts.reports.junit].sort());
  });
});

// The scripts themselves, run as the runners run them against a real server directory and the built CLI.
describe('the scan scripts', () => {
  let work: string;
  beforeAll(() => {
    ensureBuilt(['cli']);
    work = mkdtempSync(join(tmpdir(), 'svc-ci-'));
    cpSync(join(REPO, 'fixtures/servers/poisoned-notes-ts'), join(work, 'servers/notes'), { recursive: true });
  }, 180_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  function runAction(inputs: Record<string, string>): { status: number | null; stdout: string; outputs: Record<string, string>; summary: string } {
    const outputFile = join(work, 'github-output');
    const summaryFile = join(work, 'step-summary');
    writeFileSync(outputFile, '');
    writeFileSync(summaryFile, '');
    const defaults = Object.fromEntries(Object.entries(action.inputs).map(([name, input]) => [name, input.default ?? '']));
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: work, TMPDIR: work, RUNNER_TEMP: work, GITHUB_ACTION_PATH: REPO, GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: summaryFile };
    for (const [name, value] of Object.entries({ ...defaults, ...inputs })) env[`SVC_ACTION_${name.toUpperCase().replace(/-/g, '_')}`] = value;
    const result = spawnSync('bash', [join(REPO, 'ci/github/scan.sh')], { cwd: work, env, encoding: 'utf8' });
    const outputs = Object.fromEntries(readFileSync(outputFile, 'utf8').trim().split('\n').map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]));
    return { status: result.status, stdout: result.stdout, outputs, summary: readFileSync(summaryFile, 'utf8') };
  }

  it('GitHub: annotations on stdout, SARIF and the job summary from one scan, svc exit code as the step output', () => {
    const result = runAction({ targets: 'servers/notes', 'fail-on': 'high' });
    expect(result.status).toBe(0);
    expect(result.outputs).toEqual({ 'exit-code': '1', 'sarif-file': 'svc-results.sarif' });
    expect(result.stdout).toMatch(/^::error title=svc command-injection [^:]*,file=servers\/notes\/src\/index\.ts,line=\d+/m);
    const sarif = JSON.parse(readFileSync(join(work, 'svc-results.sarif'), 'utf8'));
    expect(sarif.runs[0].results.length).toBeGreaterThan(0);
    expect(result.summary).toMatch(/^## svc scan results/);

    expect(runAction({ targets: 'servers/notes', 'fail-on': 'never' }).outputs['exit-code']).toBe('0');
  });

  it('GitHub: a wrong input is exit code 2 with an error saying which; an unscannable target is 2 too', () => {
    const wrongBoolean = runAction({ 'upload-sarif': 'yes' });
    expect(wrongBoolean.outputs).toEqual({ 'exit-code': '2', 'sarif-file': '' });
    expect(wrongBoolean.stdout).toContain("::error title=svc::input upload-sarif must be 'true' or 'false', not 'yes'");
    expect(runAction({ targets: ' \n ' }).stdout).toContain('::error title=svc::input targets is empty');
    expect(runAction({ 'fail-on': 'severe' }).outputs['exit-code']).toBe('2');
    const missing = runAction({ targets: 'servers/notes no/such/dir', annotate: 'false', 'job-summary': 'false' });
    expect(missing.outputs['exit-code']).toBe('2');
    expect(missing.summary).toBe('');
  });

  it('GitLab: the template script writes the SAST and JUnit reports it publishes and exits with svc code', () => {
    const script = gitlab['svc-scan'].script.join('\n');
    const env = { PATH: process.env.PATH, HOME: work, TMPDIR: work, ...gitlab.variables, SVC_TARGETS: 'servers/notes', SVC_HOME: REPO };
    const result = spawnSync('sh', ['-c', script], { cwd: work, env, encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(1);
    const sast = JSON.parse(readFileSync(join(work, 'gl-sast-report.json'), 'utf8'));
    expect(sast.scan).toMatchObject({ type: 'sast', status: 'success' });
    expect(sast.vulnerabilities[0].location.file).toMatch(/^servers\/notes\//);
    expect(readFileSync(join(work, 'svc-junit.xml'), 'utf8')).toContain('<testsuite name="servers/notes');
    const bad = spawnSync('sh', ['-c', gitlab['svc-scan'].before_script[0]!], { cwd: work, env: { ...env, SVC_REF: 'main' }, encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stdout).toContain('set SVC_REF to a full commit SHA');
    expect(execFileSync('sh', ['-c', gitlab['svc-scan'].before_script[0]!], { env: { ...env, SVC_REF: 'a'.repeat(40), SVC_REPOSITORY: 'x' }, encoding: 'utf8' })).toBe('');
  });
});
