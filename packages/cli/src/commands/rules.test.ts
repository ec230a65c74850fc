import type { RuleCatalogEntry } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { renderRules } from './rules.js';

const catalog: RuleCatalogEntry[] = [
  {
    id: 'shell-injection',
    title: 'Tool input reaches a shell',
    category: 'command-injection',
    severity: 'critical',
    description: 'd',
    remediation: 'r',
    cwe: ['CWE-78'],
    owasp: 'MCP05',
    modes: ['fast', 'deep'],
  },
  {
    id: 'plain-http',
    title: 'Remote | endpoint without TLS',
    category: 'insecure-transport',
    severity: 'medium',
    description: 'd',
    remediation: 'r',
    cwe: [],
    owasp: 'MCP07',
    modes: ['fast'],
  },
];

describe('renderRules', () => {
  it('text: aligned columns with a header and a count', () => {
    const lines = renderRules(catalog, 'text').split('\n');
    expect(lines[0]).toMatch(/^ID\s+CATEGORY\s+SEVERITY\s+TITLE$/);
    expect(lines[1]).toMatch(/^shell-injection\s+command-injection\s+critical\s+Tool input reaches a shell$/);
    expect(lines[1]!.indexOf('critical')).toBe(lines[2]!.indexOf('medium'));
    expect(lines.at(-1)).toContain('2 rules');
  });

  it('json: the whole catalog entries', () => {
    expect(JSON.parse(renderRules(catalog, 'json'))).toEqual(catalog);
  });

  it('markdown: a table with pipes escaped', () => {
    const lines = renderRules(catalog, 'markdown').split('\n');
    expect(lines[0]).toBe('| Id | Category | Severity | Title |');
    expect(lines[3]).toBe('| plain-http | insecure-transport | medium | Remote \\| endpoint without TLS |');
  });
});
