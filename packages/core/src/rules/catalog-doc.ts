import { OWASP_MCP_TOP_10 } from './owasp.js';
import { ruleCatalog, type RuleCatalogEntry } from './index.js';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function cweLink(cwe: string): string {
  const number = cwe.replace(/^CWE-/, '');
  return `[${cwe}](https://cwe.mitre.org/data/definitions/${number}.html)`;
}

function section(rule: RuleCatalogEntry): string {
  return [
    `## ${rule.id}`,
    '',
    `**${rule.title}**`,
    '',
    `| Category | Default severity | Modes | CWE | OWASP MCP Top 10 |`,
    `|---|---|---|---|---|`,
    `| ${rule.category} | ${rule.severity} | ${rule.modes.join(', ')} | ${rule.cwe.map(cweLink).join(', ')} | ${rule.owasp} ${cell(OWASP_MCP_TOP_10[rule.owasp])} |`,
    '',
    rule.description,
    '',
    `**Remediation.** ${rule.remediation}`,
    '',
  ].join('\n');
}

/**
 * docs/rules.md, generated from the registry so the documentation cannot drift from what the scanner runs
 * (catalog-doc.test.ts fails when it does; `UPDATE_RULES_DOC=1` rewrites it).
 */
export function renderRulesMarkdown(): string {
  const rules = ruleCatalog();
  return [
    '# Rules',
    '',
    '<!-- Generated from the rule registry by packages/core/src/rules/catalog-doc.ts. Do not edit by hand: run',
    '     `UPDATE_RULES_DOC=1 npx vitest run packages/core/src/rules/catalog-doc.test.ts` to regenerate. -->',
    '',
    `svc runs ${rules.length} rules. Each finding carries the rule id, its category and a severity; a finding may be ` +
      'raised or lowered from the default severity below, and says why in its message. The same catalog is served by ' +
      '`svc rules` and `GET /api/v1/rules/catalog`.',
    '',
    '| Rule | Category | Severity | Title |',
    '|---|---|---|---|',
    ...rules.map((rule) => `| [\`${rule.id}\`](#${rule.id}) | ${rule.category} | ${rule.severity} | ${cell(rule.title)} |`),
    '',
    ...rules.map(section),
  ].join('\n');
}
