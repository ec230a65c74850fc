import { describe, expect, it } from 'vitest';
import type { SourceFile } from '../../model.js';
import { languageOf } from './ast.js';
import { javascriptAnalyzer } from './index.js';

/** Analyses an in-memory project (nothing is written or run). */
async function flowsOf(files: Record<string, string>) {
  const sources: SourceFile[] = Object.entries(files).map(([path, text]) => {
    const language = languageOf(path);
    return { path, absPath: `/project/${path}`, ...(language && { language }), role: 'source', size: text.length, text };
  });
  return (await javascriptAnalyzer.analyze(sources, { mode: 'fast' })).flows;
}

const CLIENTS = [
  "const { exec, execSync } = require('node:child_process');",
  'class GitClient { log(ref) { return execSync(`git log ${ref}`); } }',
  'class SvnClient { log(ref) { return exec(`svn log -r ${ref}`); } }',
  'exports.GitClient = GitClient;',
  'exports.SvnClient = SvnClient;',
].join('\n');

describe('calls into helper classes', () => {
  it('follows compiled code to the class the package passes to the constructor, not to every `log`', async () => {
    const flows = await flowsOf({
      'dist/clients.js': CLIENTS,
      'dist/service.js': 'class Service { constructor(git) { this.git = git; } history(ref) { return this.git.log(ref); } }\nexports.Service = Service;\n',
      'dist/index.js': [
        "const clients_1 = require('./clients.js');",
        "const service_1 = require('./service.js');",
        'const service = new service_1.Service(new clients_1.GitClient());',
        "server.tool('history', { ref: z.string() }, async ({ ref }) => service.history(ref));",
      ].join('\n'),
    });
    expect(flows.map((flow) => `${flow.sink.callee}:${flow.origin.param}`)).toEqual(['execSync:ref']);
  });

  it('follows a local instance into an inherited method; an unknown receiver keeps every implementation', async () => {
    const flows = await flowsOf({
      'src/clients.ts': CLIENTS.replace('class GitClient {', 'class Base { run(x) { return execSync(x); } }\nclass GitClient extends Base {').replace(
        'execSync(`git log ${ref}`)',
        'this.run(`git log ${ref}`)',
      ),
      'src/index.ts': [
        "import { GitClient } from './clients.js';",
        "server.tool('typed', { ref: z.string() }, async ({ ref }) => { const git = new GitClient(); return git.log(ref); });",
        "server.tool('untyped', { ref: z.string() }, async ({ ref }, extra) => extra.client.log(ref));",
      ].join('\n'),
    });
    expect(flows.map((flow) => `${flow.origin.tool}:${flow.sink.callee}`).sort()).toEqual(['typed:execSync', 'untyped:exec', 'untyped:execSync']);
  });

  it('resolves tsc decorator metadata and static methods of imported classes', async () => {
    const flows = await flowsOf({
      'dist/shell.js': "const child_process_1 = require('node:child_process');\nclass Shell { static run(line) { return (0, child_process_1.execSync)(line); } }\nexports.Shell = Shell;\n",
      'dist/runner.js': [
        "const child_process_1 = require('node:child_process');",
        "const shell_1 = require('./shell.js');",
        'let Runner = class Runner { start(name) { return shell_1.Shell.run(`systemctl start ${name}`); } };',
        'exports.Runner = Runner;',
        '// Same method name, never what Units holds.',
        'class LegacyRunner { start(name) { return (0, child_process_1.exec)(`service ${name} start`); } }',
        'exports.LegacyRunner = LegacyRunner;',
      ].join('\n'),
      'dist/service.js': [
        "const runner_1 = require('./runner.js');",
        'let Units = class Units { constructor(runner) { this.runner = runner; } launch(name) { return this.runner.start(name); } };',
        'exports.Units = Units;',
        'exports.Units = Units = __decorate([Injectable(), __metadata("design:paramtypes", [runner_1.Runner])], Units);',
      ].join('\n'),
      'dist/index.js': "server.tool('start_unit', { name: z.string() }, async ({ name }, { units }) => units.launch(name));\n",
    });
    expect(flows.map((flow) => `${flow.sink.callee}:${flow.origin.param}:${flow.composition}`)).toEqual(['child_process_1.execSync:name:embedded']);
  });
});

describe('validating methods with an operator switch', () => {
  // A class whose async method returns the real path only once it is inside a root, except behind a switch.
  const area = (init: string, extra = '') =>
    [
      "const fs = require('node:fs/promises');",
      "const path = require('node:path');",
      'class Area {',
      '  #roots; #anyPath;',
      `  constructor(options) { this.#roots = options.roots; this.#anyPath = ${init}; }`,
      extra,
      '  async checked(requested) {',
      '    const real = await fs.realpath(path.resolve(this.#roots[0], requested));',
      '    if (this.#roots.length > 0 && this.#anyPath) return real;',
      '    let inside = false;',
      '    for (const root of this.#roots) if (real.startsWith(root + path.sep)) { inside = true; break; }',
      "    if (!inside) throw new Error('outside');",
      '    return real;',
      '  }',
      "  async read(requested) { return fs.readFile(await this.checked(requested), 'utf8'); }",
      '}',
      'const area = new Area({ roots: process.argv.slice(2) });',
      "server.tool('read', { file: z.string() }, async ({ file }) => area.read(file));",
    ].join('\n');
  const sanitizersOf = async (source: string) => (await flowsOf({ 'dist/index.js': source })).map((flow) => flow.sanitizers);

  it('takes a branch behind an off-by-default switch as the operator’s choice, the other path as checked', async () => {
    expect(await sanitizersOf(area('options.anyPath ?? false'))).toEqual([['operator-opt-in', 'realpath-containment']]);
    expect(await sanitizersOf(area('options.anyPath === true'))).toEqual([['operator-opt-in', 'realpath-containment']]);
  });

  it('carries a check that does not refuse only through a flag a later refusal reads', async () => {
    const logged = area('false').replace('{ inside = true; break; }', "console.error('inside');").replace("    if (!inside) throw new Error('outside');\n", '');
    expect(logged).not.toContain('inside = true');
    expect(await sanitizersOf(logged)).toEqual([[]]);
    expect(await sanitizersOf(area('false'))).toEqual([['operator-opt-in', 'realpath-containment']]);
  });

  it('leaves the flow unguarded when the switch is on by default or a method can turn it on', async () => {
    expect(await sanitizersOf(area('options.anyPath ?? true'))).toEqual([[]]);
    expect(await sanitizersOf(area('options.anyPath ?? false', '  setAnyPath(on) { this.#anyPath = on; }'))).toEqual([[]]);
  });
});
