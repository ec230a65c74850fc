import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { toSarif } from '../report/sarif.js';
import { REPORT_SCHEMA_VERSION } from '../report/schema.js';
import { assessCoverage } from './coverage.js';
import { scanTarget, scanWorkspace } from './engine.js';
import type { Manifest, ParseProblem, ScanReport } from './model.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../../../fixtures/${name}/`, import.meta.url));

function scanFolder(root: string): Promise<ScanReport> {
  return scanWorkspace({ target: { kind: 'directory', input: root, path: root }, root, name: root, dispose: async () => {} });
}

const packageJson = (dependencies: Record<string, string>, devDependencies: Record<string, string> = {}): Manifest => ({
  kind: 'package.json',
  path: 'package.json',
  data: { name: 'x', dependencies, devDependencies },
});

describe('scan coverage', () => {
  it('calls a fully analysed server scanned, with no reasons', async () => {
    const report = await scanFolder(fixture('servers/clean-files-ts'));
    expect(report.coverage).toEqual({ status: 'scanned', reasons: [] });
    expect(report.grade).toBe('A');
  });

  it('calls a server partial when its tools could not be found, naming the file, the framework and the shapes looked for', async () => {
    const report = await scanFolder(fixture('partial-scans/tools-from-yaml-ts'));
    expect(report.tools).toEqual([]);
    expect(report.coverage.status).toBe('partial');
    expect(report.coverage.reasons).toEqual([
      expect.stringMatching(/^no tools found: src\/index\.ts imports @modelcontextprotocol\/sdk but no tool definition was recognised \(looked for /),
    ]);
    // It keeps a score (what was scanned was scanned), with the reason beside it.
    expect(report.grade).not.toBeNull();
  });

  it('calls a server partial when a source file does not parse, naming the file', async () => {
    const report = await scanFolder(fixture('partial-scans/conflict-markers-ts'));
    expect(report.tools.map((tool) => tool.name)).toEqual(['list_notes']);
    expect(report.problems).toEqual([expect.objectContaining({ file: 'src/search.ts', kind: 'unparsed' })]);
    expect(report.coverage).toEqual({ status: 'partial', reasons: [expect.stringMatching(/^1 file not parsed \(src\/search\.ts: /)] });
  });

  it('reports a container image as not scanned, with no score or grade, and SARIF marks the execution failed', async () => {
    const report = await scanTarget({ kind: 'remote', input: 'docker:mcp/server:1.2', url: 'docker:mcp/server:1.2' });
    expect(report.coverage.status).toBe('not-scanned');
    expect(report.coverage.reasons[0]).toMatch(/^container image mcp\/server:1\.2: /);
    expect(report.score).toBeNull();
    expect(report.grade).toBeNull();
    const sarif = toSarif({ schemaVersion: REPORT_SCHEMA_VERSION, generator: { name: 'svc', version: '0.1.0' }, reports: [report], errors: [] });
    expect(sarif.runs[0]!.invocations![0]!.executionSuccessful).toBe(false);
    expect(sarif.runs[0]!.invocations![0]!.toolExecutionNotifications![0]!).toMatchObject({ level: 'error' });
  });

  it('groups problems by kind, lists at most three files each and counts the rest', () => {
    const problems: ParseProblem[] = Array.from({ length: 5 }, (_, i) => ({ file: `dist/chunk-${i}.js`, message: 'Unexpected token', kind: 'unparsed' }));
    problems.push({ file: 'data/big.json', message: 'not read: 9000000 bytes is over the size limit', kind: 'over-limit' });
    const coverage = assessCoverage({ problems, tools: [], manifests: [] });
    expect(coverage.status).toBe('partial');
    expect(coverage.reasons).toEqual([
      '5 files not parsed (dist/chunk-0.js: Unexpected token; dist/chunk-1.js: Unexpected token; dist/chunk-2.js: Unexpected token; 2 more)',
      "1 over the scan's limits (data/big.json: not read: 9000000 bytes is over the size limit)",
    ]);
  });

  it('expects tools only from runtime dependencies on an MCP server SDK or framework, in npm and Python manifests', () => {
    const noTools = { problems: [], tools: [] };
    expect(assessCoverage({ ...noTools, manifests: [packageJson({ express: '^5' })] }).status).toBe('scanned');
    // A test-only dependency on the SDK does not make a package a server.
    expect(assessCoverage({ ...noTools, manifests: [packageJson({}, { '@modelcontextprotocol/sdk': '^1' })] }).status).toBe('scanned');
    expect(assessCoverage({ ...noTools, manifests: [packageJson({ 'mcp-framework': '^0.2' })] }).status).toBe('partial');
    const pyproject: Manifest = { kind: 'pyproject.toml', path: 'pyproject.toml', data: { project: { dependencies: ['FastMCP>=2.3'] } } };
    expect(assessCoverage({ ...noTools, manifests: [pyproject] }).reasons[0]).toMatch(/depends on FastMCP/);
    const requirements: Manifest = { kind: 'requirements.txt', path: 'requirements.txt', data: 'mcp[cli]==1.9.0\nhttpx\n' };
    expect(assessCoverage({ ...noTools, manifests: [requirements] }).status).toBe('partial');
  });
});
