import { describe, expect, it } from 'vitest';
import rule from './typosquat-package.js';
import type { Manifest, ScanTarget } from '../scan/model.js';
import { damerauLevenshtein } from './support/edit-distance.js';
import { runRule, serious } from './support/test-context.js';

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
