// The rule registry: one import per rule file, in category order. rules/index.test.ts checks that every file under
// rules/ is registered, that ids equal file names, and that docs/rules.md lists the same catalog.
import type { Rule } from './create-rule.js';

export const RULES: readonly Rule[] = [
];

const byId = new Map(RULES.map((rule) => [rule.id, rule]));

export function getRule(id: string): Rule | undefined {
  return byId.get(id);
}

/** A rule as the catalog serves it (`svc rules`, `GET /api/v1/rules/catalog`, SARIF tool.driver.rules). */
export interface RuleCatalogEntry {
  id: string;
  title: string;
  category: Rule['meta']['category'];
  severity: Rule['meta']['severity'];
  description: string;
  remediation: string;
  cwe: string[];
  owasp: Rule['meta']['owasp'];
  modes: Rule['meta']['modes'];
}

export function ruleCatalog(): RuleCatalogEntry[] {
  return RULES.map(({ id, meta }) => ({
    id,
    title: meta.title,
    category: meta.category,
    severity: meta.severity,
    description: meta.description,
    remediation: meta.remediation,
    cwe: meta.cwe,
    owasp: meta.owasp,
    modes: meta.modes,
  }));
}
