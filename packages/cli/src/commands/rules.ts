import { OWASP_MCP_TOP_10, ruleCatalog } from '@svc/core';
import type { RuleCatalogEntry } from '@svc/core';
import { EXIT } from '../exit-codes.js';
import type { CommandIo } from '../terminal.js';
import { textTable } from '../ui/output.js';

export const RULES_FORMATS = ['text', 'json', 'markdown'] as const;
export type RulesFormat = (typeof RULES_FORMATS)[number];

const COLUMNS = ['id', 'category', 'severity', 'title'] as const;

function rulesTable(rules: RuleCatalogEntry[]): string {
  return textTable([COLUMNS.map((column) => column.toUpperCase()), ...rules.map((rule) => COLUMNS.map((column) => rule[column]))]);
}

function markdownTable(rules: RuleCatalogEntry[]): string {
  const escape = (cell: string) => cell.replace(/\|/g, '\\|');
  const lines = [
    `| ${COLUMNS.map((column) => column[0]!.toUpperCase() + column.slice(1)).join(' | ')} |`,
    `| ${COLUMNS.map(() => '---').join(' | ')} |`,
    ...rules.map((rule) => `| ${COLUMNS.map((column) => escape(rule[column])).join(' | ')} |`),
  ];
  return lines.join('\n');
}

export function renderRules(rules: RuleCatalogEntry[], format: RulesFormat): string {
  switch (format) {
    case 'json':
      return JSON.stringify(rules, null, 2);
    case 'markdown':
      return markdownTable(rules);
    case 'text':
      return `${rulesTable(rules)}\n\n${rules.length} rules. Details: svc rules --format json`;
  }
}

/** One rule in full, as `svc rules <id>` prints it: what it looks for, why it matters, how to fix, CWE and OWASP. */
export function renderRule(rule: RuleCatalogEntry): string {
  return [
    `${rule.id}: ${rule.title}`,
    `  category ${rule.category} · severity ${rule.severity} · modes ${rule.modes.join(', ')}`,
    '',
    rule.description,
    '',
    `Remediation: ${rule.remediation}`,
    '',
    `CWE: ${rule.cwe.map((id) => `${id} (https://cwe.mitre.org/data/definitions/${id.replace(/^CWE-/, '')}.html)`).join(', ')}`,
    `OWASP MCP Top 10: ${rule.owasp} ${OWASP_MCP_TOP_10[rule.owasp]}`,
    `Docs: docs/rules.md#${rule.id}`,
  ].join('\n');
}

export function rulesCommand(id: string | undefined, options: { format: RulesFormat }, io: CommandIo): number {
  const catalog = ruleCatalog();
  if (id === undefined) {
    io.stdout.write(`${renderRules(catalog, options.format)}\n`);
    return EXIT.clean;
  }
  const rule = catalog.find((entry) => entry.id === id);
  if (!rule) {
    io.stderr.write(`svc: no rule ${id} (svc rules lists them)\n`);
    return EXIT.error;
  }
  io.stdout.write(`${options.format === 'json' ? JSON.stringify(rule, null, 2) : options.format === 'markdown' ? renderRules([rule], 'markdown') : renderRule(rule)}\n`);
  return EXIT.clean;
}
