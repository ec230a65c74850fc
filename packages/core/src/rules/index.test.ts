import { readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { CATEGORIES } from '../scan/model.js';
import { OWASP_MCP_TOP_10 } from './owasp.js';
import { RULES, ruleCatalog } from './index.js';

const NOT_RULES = new Set(['create-rule.ts', 'index.ts', 'owasp.ts', 'catalog-doc.ts']);
const ruleFiles = readdirSync(new URL('.', import.meta.url))
  .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !NOT_RULES.has(name))
  .map((name) => name.replace(/\.ts$/, ''));

describe('rule registry', () => {
  test('every rule file is registered and every registered rule has its own file', () => {
    expect([...RULES.map((rule) => rule.id)].sort()).toEqual([...ruleFiles].sort());
  });

  test('ids are unique', () => {
    expect(new Set(RULES.map((rule) => rule.id)).size).toBe(RULES.length);
  });

  test('every category has at least one rule', () => {
    const covered = new Set(RULES.map((rule) => rule.meta.category));
    expect(CATEGORIES.filter((category) => !covered.has(category))).toEqual([]);
  });

  test.each(RULES.map((rule) => [rule.id, rule] as const))('%s has complete metadata', (_id, rule) => {
    expect(rule.meta.title.length).toBeGreaterThan(10);
    expect(rule.meta.description.length).toBeGreaterThan(40);
    expect(rule.meta.remediation.length).toBeGreaterThan(20);
    expect(rule.meta.cwe.length).toBeGreaterThan(0);
    for (const cwe of rule.meta.cwe) expect(cwe).toMatch(/^CWE-\d+$/);
    expect(Object.keys(OWASP_MCP_TOP_10)).toContain(rule.meta.owasp);
    expect(rule.meta.modes.length).toBeGreaterThan(0);
    expect(rule.meta.confidence).toBeGreaterThan(0);
    expect(rule.meta.confidence).toBeLessThanOrEqual(1);
  });

  test('the catalog mirrors the registry', () => {
    expect(ruleCatalog().map((entry) => entry.id)).toEqual(RULES.map((rule) => rule.id));
  });
});
