import type { RuleCatalogEntry } from '@svc/core';
import { describe, expect, it } from 'vitest';
import type { CommandIo } from '../terminal.js';
import { renderRules, rulesCommand } from './rules.js';

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

  it('explains one rule with `svc rules <id>`, and exits 2 for an unknown id', () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: { write: (text: string) => out.push(text) }, stderr: { write: (text: string) => err.push(text) } } as unknown as CommandIo;
    expect(rulesCommand('command-injection', { format: 'text' }, io)).toBe(0);
    const text = out.join('');
    expect(text).toMatch(/^command-injection: .+\n {2}category command-injection · severity critical/);
    expect(text).toMatch(/\nRemediation: /);
    expect(text).toMatch(/CWE: CWE-78 \(https:\/\/cwe\.mitre\.org\/data\/definitions\/78\.html\)/);
    expect(text).toMatch(/OWASP MCP Top 10: MCP05 Command Injection & Execution/);
    expect(rulesCommand('no-such-rule', { format: 'text' }, io)).toBe(2);
    expect(err.join('')).toBe('svc: no rule no-such-rule (svc rules lists them)\n');
  });
});
