// Thin launchers: a package whose command only starts a server a dependency defines gets that dependency scanned too,
// from its own node_modules (a folder) or from the registry at the version its lockfile pins (a package).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanInputs } from './engine.js';
import { launchedDependencies } from './launcher.js';
import type { Manifest, SourceFile } from './model.js';
import { buildTarGz, sriSha512 } from './sources/testing.js';

const LAUNCHER_PACKAGE = {
  name: 'notes-launcher',
  version: '1.0.0',
  bin: { 'notes-mcp': './cli.js' },
  dependencies: { 'notes-engine': '^2.0.0', commander: '^12.0.0' },
};
const LAUNCHER_CLI = `#!/usr/bin/env node
const { program } = require('commander');
const { startServer } = require('notes-engine/lib/mcp/server');
const { banner } = require('./banner.js');
program.name('notes-mcp').option('--root <dir>').action((options) => startServer({ root: options.root, banner: banner() }));
program.parse(process.argv);
`;
const LOCKFILE = { lockfileVersion: 3, packages: { '': { name: 'notes-launcher' }, 'node_modules/notes-engine': { version: '2.1.0' } } };

const ENGINE_PACKAGE = { name: 'notes-engine', version: '2.1.0', main: 'lib/mcp/server.js', dependencies: { '@modelcontextprotocol/sdk': '^1.20.0' } };
const ENGINE_SERVER = `const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { exec } = require('node:child_process');
const { z } = require('zod');

function startServer(options) {
  const server = new McpServer({ name: 'notes', version: '2.1.0' });
  server.registerTool('grep_notes', { description: 'Searches the notes for a word.', inputSchema: { word: z.string() } }, async ({ word }) => {
    const output = await new Promise((resolve) => exec('grep -ril ' + word + ' ' + options.root, (error, stdout) => resolve(stdout)));
    return { content: [{ type: 'text', text: output }] };
  });
  return server.connect(new StdioServerTransport());
}
module.exports = { startServer };
`;

const file = (filePath: string, text: string): SourceFile => ({ path: filePath, absPath: `/x/${filePath}`, role: 'source', language: 'javascript', size: text.length, text });
const packageManifest = (data: unknown): Manifest => ({ kind: 'package.json', path: 'package.json', data });

describe('launchedDependencies', () => {
  it('names the runtime dependencies the entry points load, at the lockfile\'s version', () => {
    const files = [file('cli.js', LAUNCHER_CLI), file('banner.js', 'exports.banner = () => "notes";\n'), { ...file('package-lock.json', JSON.stringify(LOCKFILE)), language: undefined }];
    expect(launchedDependencies(files, [packageManifest(LAUNCHER_PACKAGE)], [])).toEqual([
      { name: 'commander', spec: '^12.0.0' },
      { name: 'notes-engine', spec: '2.1.0' },
    ]);
  });

  it('is empty for a package with tools of its own, or whose entry loads only its own files and dev dependencies', () => {
    const files = [file('cli.js', LAUNCHER_CLI)];
    const tool = { kind: 'tool' as const, name: 'x', parameters: [], location: { file: 'cli.js', line: 1, column: 1 }, extractor: 'mcp-sdk' as const };
    expect(launchedDependencies(files, [packageManifest(LAUNCHER_PACKAGE)], [tool])).toEqual([]);
    const devOnly = { ...LAUNCHER_PACKAGE, dependencies: {}, devDependencies: LAUNCHER_PACKAGE.dependencies };
    expect(launchedDependencies(files, [packageManifest(devOnly)], [])).toEqual([]);
    // Code the registry does not serve is not looked up there.
    const local = { ...LAUNCHER_PACKAGE, dependencies: { 'notes-engine': 'file:../engine', commander: 'git+https://git.example.test/commander.git' } };
    expect(launchedDependencies(files, [packageManifest(local)], [])).toEqual([]);
  });
});

let work: string;
let server: Server;
let registry: string;
const tarballs = new Map<string, Buffer>();

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'svc-launcher-'));
  tarballs.set(
    'notes-launcher-1.0.0.tgz',
    buildTarGz([
      { name: 'package/package.json', content: JSON.stringify(LAUNCHER_PACKAGE) },
      { name: 'package/cli.js', content: LAUNCHER_CLI },
      { name: 'package/banner.js', content: 'exports.banner = () => "notes";\n' },
      { name: 'package/npm-shrinkwrap.json', content: JSON.stringify(LOCKFILE) },
    ]),
  );
  tarballs.set(
    'notes-engine-2.1.0.tgz',
    buildTarGz([
      { name: 'package/package.json', content: JSON.stringify(ENGINE_PACKAGE) },
      { name: 'package/lib/mcp/server.js', content: ENGINE_SERVER },
    ]),
  );
  tarballs.set('commander-12.1.0.tgz', buildTarGz([{ name: 'package/package.json', content: JSON.stringify({ name: 'commander', version: '12.1.0', main: 'index.js' }) }, { name: 'package/index.js', content: 'exports.program = {};\n' }]));
  const packument = (name: string, versions: string[]) => ({
    name,
    'dist-tags': { latest: versions.at(-1) },
    versions: Object.fromEntries(
      versions.map((version) => [version, { name, version, dist: { tarball: `${registry}${name}/-/${name}-${version}.tgz`, integrity: sriSha512(tarballs.get(`${name}-${version}.tgz`) ?? Buffer.alloc(0)) } }]),
    ),
  });
  server = createServer((req, res) => {
    const url = req.url ?? '';
    const tarball = /\/-\/(.+\.tgz)$/.exec(url)?.[1];
    if (tarball && tarballs.has(tarball)) return void res.end(tarballs.get(tarball));
    const documents: Record<string, unknown> = {
      '/notes-launcher': packument('notes-launcher', ['1.0.0']),
      // 2.2.0 is the newest match for ^2.0.0; the launcher's lockfile pins 2.1.0, which is the one scanned.
      '/notes-engine': packument('notes-engine', ['2.1.0', '2.2.0']),
      '/commander': packument('commander', ['12.1.0']),
    };
    if (documents[url]) return void res.end(JSON.stringify(documents[url]));
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(work, { recursive: true, force: true });
});

const summary = (run: Awaited<ReturnType<typeof scanInputs>>) =>
  run.reports.map((report) => ({ name: `${report.target.name}@${report.target.version ?? ''}`, launchedBy: report.target.launchedBy, rules: report.findings.map((finding) => finding.ruleId) }));

describe('a launcher scan', () => {
  it('scans the dependency a package launches from the registry, at the version its lockfile pins', async () => {
    const run = await scanInputs(['npm:notes-launcher@1.0.0'], { source: { npmRegistry: registry, tempRoot: work } });
    expect(run.errors).toEqual([]);
    expect(summary(run)).toEqual([
      { name: 'notes-launcher@1.0.0', launchedBy: undefined, rules: [] },
      { name: 'commander@12.1.0', launchedBy: 'notes-launcher@1.0.0', rules: [] },
      { name: 'notes-engine@2.1.0', launchedBy: 'notes-launcher@1.0.0', rules: ['command-injection'] },
    ]);
    const launcher = run.reports[0]!;
    expect(launcher.coverage.status).toBe('partial');
    expect(launcher.coverage.reasons).toEqual([
      'no tools in the package itself: its entry point loads commander@^12.0.0, notes-engine@2.1.0, which svc scans as targets of their own when the package comes from the registry or has them in node_modules',
    ]);
    expect(run.reports[2]!.tools.map((tool) => tool.name)).toEqual(['grep_notes']);
  });

  it('takes a folder\'s installed copy from its node_modules', async () => {
    const root = path.join(work, 'checkout');
    const engine = path.join(root, 'node_modules', 'notes-engine');
    await mkdir(path.join(engine, 'lib', 'mcp'), { recursive: true });
    await writeFile(path.join(root, 'package.json'), JSON.stringify({ ...LAUNCHER_PACKAGE, dependencies: { 'notes-engine': '^2.0.0' } }));
    await writeFile(path.join(root, 'cli.js'), "#!/usr/bin/env node\nrequire('notes-engine').startServer({ root: process.cwd() });\n");
    await writeFile(path.join(engine, 'package.json'), JSON.stringify(ENGINE_PACKAGE));
    await writeFile(path.join(engine, 'lib', 'mcp', 'server.js'), ENGINE_SERVER);
    const run = await scanInputs([root], { source: { tempRoot: work } });
    expect(summary(run)).toEqual([
      { name: 'notes-launcher@1.0.0', launchedBy: undefined, rules: [] },
      { name: 'notes-engine@2.1.0', launchedBy: 'notes-launcher@1.0.0', rules: ['command-injection'] },
    ]);
    expect(run.reports[1]!.target.kind).toBe('directory');
  });

  it('stays offline for a folder whose dependency is not installed: nothing fetched, the launcher partial', async () => {
    const root = path.join(work, 'offline-checkout');
    await mkdir(root, { recursive: true });
    await writeFile(path.join(root, 'package.json'), JSON.stringify({ ...LAUNCHER_PACKAGE, dependencies: { 'notes-engine': '^2.0.0' } }));
    await writeFile(path.join(root, 'cli.js'), "#!/usr/bin/env node\nrequire('notes-engine').startServer({ root: process.cwd() });\n");
    // A registry is configured, and must not be asked.
    const run = await scanInputs([root], { source: { tempRoot: work, npmRegistry: 'http://127.0.0.1:9/' } });
    expect(run.errors).toEqual([]);
    expect(run.reports.map((report) => report.target.name)).toEqual(['notes-launcher']);
    expect(run.reports[0]!.coverage.status).toBe('partial');
  });
});
