import { ruleCatalog } from '@svc/core';
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

export function rulesCommand(options: { format: RulesFormat }, io: CommandIo): number {
  io.stdout.write(`${renderRules(ruleCatalog(), options.format)}\n`);
  return EXIT.clean;
}
