import { describe, expect, it } from 'vitest';
import rule from './typosquat-package.js';
import type { Manifest, PackageMetadata, ScanTarget } from '../scan/model.js';
import { damerauLevenshtein } from './support/edit-distance.js';
import { runRule, runRuleWith, serious, type ContextInput } from './support/test-context.js';

const npmTarget = (name: string): ScanTarget => ({ kind: 'npm', input: name, name, spec: name });
const pypiTarget = (name: string): ScanTarget => ({ kind: 'pypi', input: `pypi:${name}`, name });

function packageJson(name: string, dependencies: Record<string, string> = {}): { manifests: Manifest[]; files: Array<{ path: string; text: string }> } {
  const data = { name, version: '1.0.0', dependencies };
  return { manifests: [{ kind: 'package.json', path: 'package.json', data }], files: [{ path: 'package.json', text: JSON.stringify(data, null, 2) }] };
}

describe('damerauLevenshtein', () => {
  it.each([
    ['fetch', 'fecth', 1],
    ['filesystem', 'filesytem', 1],
    ['redis', 'reddit', 2],
    ['', 'abc', 3],
    ['same', 'same', 0],
  ])('%s → %s = %i', (a, b, distance) => {
    expect(damerauLevenshtein(a, b)).toBe(distance);
  });
});

describe('typosquat-package', () => {
  it.each([
    ['the SDK itself', '@modelcontextprotocol/sdk'],
    ['an official server', '@modelcontextprotocol/server-filesystem'],
    ['a fork under another scope', '@acme/server-filesystem'],
    ['a different word', 'mcp-server-reddit'],
    ['a common unscoped spelling', 'mcp-server-filesystem'],
    ['an unrelated server', 'weather-mcp-server'],
    ['an extension of a known name', 'mcp-server-kubernetes-extra'],
    ['a near miss inside the owner\'s own scope', '@modelcontextprotocol/server-filesytsem'],
  ])('does not report %s (%s) or its known dependencies', (_name, name) => {
    const input = packageJson(name, { '@modelcontextprotocol/sdk': '^1.20.0', zod: '^3.25.0', fastmcp: '^3.0.0' });
    expect(runRule(rule, { ...input, name, target: npmTarget(name) })).toEqual([]);
  });

  it.each([
    ['@modelcontextprotocol-sdk', '@modelcontextprotocol/sdk', 'high'],
    ['@modelcontext-protocol/sdk', '@modelcontextprotocol/sdk', 'high'],
    ['@modelcontextprotocal/sdk', '@modelcontextprotocol/sdk', 'high'],
    ['mcp-server-filesytem', '@modelcontextprotocol/server-filesystem', 'high'],
    ['@playwrigth/mcp', '@playwright/mcp', 'high'],
    ['mcp_remote', 'mcp-remote', 'high'],
    ['@upstassh/context7-mcp', '@upstash/context7-mcp', 'high'],
  ])('reports the package name %s as imitating %s', (name, known, severity) => {
    const findings = runRule(rule, { ...packageJson(name), name, target: npmTarget(name) });
    expect(findings).toHaveLength(1);
    expect(findings[0]?.severity).toBe(severity);
    expect(findings[0]?.evidence).toBe(`${name} ≈ ${known}`);
    expect(findings[0]?.location).toMatchObject({ file: 'package.json', line: 2 });
  });

  it('reports a typosquatted npm dependency at its line', () => {
    const input = packageJson('my-weather-server', { zod: '^3.0.0', '@modelcontextprotocol/sdk': '^1.0.0', '@modelcontextprotocoI/sdk': '^1.0.0' });
    const findings = runRule(rule, { ...input, name: 'my-weather-server' });
    expect(findings).toHaveLength(1);
    expect(findings[0]?.message).toContain('`@modelcontextprotocoI/sdk`');
    expect(findings[0]?.location?.line).toBe(7);
  });

  it('reports typosquatted Python dependencies in pyproject.toml and requirements.txt, honouring PEP 503 names', () => {
    const pyproject = { project: { name: 'weather', dependencies: ['mcp[cli]>=1.2', 'fastmpc>=2.0', 'httpx'] } };
    const requirements = '# pinned\nMcp_Server_Fetch==0.6\nmcp-server-fecth==0.1\n-r base.txt\n';
    const findings = runRule(rule, {
      name: 'weather',
      manifests: [
        { kind: 'pyproject.toml', path: 'pyproject.toml', data: pyproject },
        { kind: 'requirements.txt', path: 'requirements.txt', data: requirements },
      ],
      files: [{ path: 'requirements.txt', text: requirements }],
    });
    expect(findings.map((finding) => finding.evidence)).toEqual(['fastmpc ≈ fastmcp', 'mcp-server-fecth ≈ mcp-server-fetch']);
    expect(findings[1]?.location).toMatchObject({ file: 'requirements.txt', line: 3 });
  });

  it('checks a PyPI package name against PyPI names only', () => {
    expect(serious(runRule(rule, { name: 'mcp-server-tiem', target: pypiTarget('mcp-server-tiem') }))).toHaveLength(1);
    expect(runRule(rule, { name: 'mcp_server_time', target: pypiTarget('mcp_server_time') })).toEqual([]);
  });
});

describe('typosquat-package: signs of a squat', () => {
  // A fixed clock: the age signal is judged against the scan's time, never the real date.
  const now = new Date('2026-03-01T12:00:00Z');
  const manifestOf = (data: Record<string, unknown>): ContextInput => ({
    manifests: [{ kind: 'package.json', path: 'package.json', data }],
    files: [{ path: 'package.json', text: JSON.stringify(data, null, 2) }],
  });
  const run = (input: ContextInput, metadata?: PackageMetadata) => runRuleWith(rule, input, { now, ...(metadata && { metadata }) });

  it('keeps the name-only judgement when the manifest shows nothing else', () => {
    const name = 'mcp-server-filesytem';
    const findings = run({ ...manifestOf({ name, version: '1.0.0', repository: 'https://github.com/modelcontextprotocol/servers' }), name, target: npmTarget(name) });
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity: 'high', evidence: `${name} ≈ @modelcontextprotocol/server-filesystem` });
    expect(findings[0]?.confidence).toBeUndefined();
  });

  it('raises severity and confidence for install scripts and a repository of another project', () => {
    const name = '@modelcontextprotocal/sdk';
    const data = { name, version: '1.0.2', scripts: { postinstall: 'node ./scripts/setup.js' }, repository: { type: 'git', url: 'git+https://github.com/dev-tools-hub/sdk-helpers.git' } };
    const findings = run({ ...manifestOf(data), name, target: npmTarget(name) });
    expect(findings[0]?.severity).toBe('critical');
    expect(findings[0]?.confidence).toBeGreaterThan(0.85);
    expect(findings[0]?.evidence).toContain('runs code on install (postinstall: node ./scripts/setup.js)');
    expect(findings[0]?.evidence).toContain('is another project than @modelcontextprotocol/sdk');
  });

  it('counts a first release days before the scan, and few versions, from the registry metadata', () => {
    const name = 'mcp_remote';
    const metadata: PackageMetadata = { registry: 'npm', firstPublishedAt: '2026-02-25T08:00:00Z', versionCount: 2, publishedAt: '2026-02-27T08:00:00Z' };
    const findings = run({ ...manifestOf({ name, version: '0.0.2', repository: 'github:someone/mcp-remote' }), name, target: npmTarget(name) }, metadata);
    expect(findings[0]?.severity).toBe('critical');
    expect(findings[0]?.evidence).toContain('first published 4 days before the scan (2026-02-25)');
    expect(findings[0]?.evidence).toContain('2 versions published');
  });

  it('does not judge age without the scan clock, nor a release older than a month', () => {
    const name = 'mcp_remote';
    const data = { name, version: '3.1.0', repository: 'https://github.com/someone/mcp-remote' };
    const old: PackageMetadata = { registry: 'npm', firstPublishedAt: '2025-06-01T00:00:00Z', versionCount: 14 };
    expect(run({ ...manifestOf(data), name, target: npmTarget(name) }, old)[0]?.severity).toBe('high');
    const fresh: PackageMetadata = { registry: 'npm', firstPublishedAt: '2026-02-28T00:00:00Z', versionCount: 14 };
    expect(runRuleWith(rule, { ...manifestOf(data), name, target: npmTarget(name) }, { metadata: fresh })[0]?.severity).toBe('high');
  });

  it('lets signals alone report nothing: a different name with an install script stays clean', () => {
    const name = 'mcp-server-reddit';
    const data = { name, version: '0.1.0', scripts: { postinstall: 'node build.js' } };
    expect(run({ ...manifestOf(data), name, target: npmTarget(name) }, { registry: 'npm', versionCount: 1, firstPublishedAt: '2026-02-28T00:00:00Z' })).toEqual([]);
  });
});

describe('typosquat-package: signs of a squat in a Python project', () => {
  it('reads the repository from [project.urls] and reports one of another project', () => {
    const data = { project: { name: 'fastmcpp', version: '0.1.0', urls: { Source: 'https://github.com/quick-tools/agent-kit' } } };
    const manifests: Manifest[] = [{ kind: 'pyproject.toml', path: 'pyproject.toml', data }];
    const files = [{ path: 'pyproject.toml', text: '[project]\nname = "fastmcpp"\nversion = "0.1.0"\n\n[project.urls]\nSource = "https://github.com/quick-tools/agent-kit"\n' }];
    const metadata: PackageMetadata = { registry: 'pypi', versionCount: 1 };
    const findings = runRuleWith(rule, { manifests, files, name: 'fastmcpp', target: pypiTarget('fastmcpp') }, { now: new Date('2026-03-01T00:00:00Z'), metadata });
    expect(findings).toHaveLength(1);
    expect(findings[0]?.evidence).toContain('repository https://github.com/quick-tools/agent-kit is another project than fastmcp');
    expect(findings[0]?.evidence).toContain('1 version published');
  });
});
