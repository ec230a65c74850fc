import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { renderRulesMarkdown } from './catalog-doc.js';
import { RULES } from './index.js';

const docPath = fileURLToPath(new URL('../../../../docs/rules.md', import.meta.url));

test('docs/rules.md is generated from the rule registry', () => {
  const expected = renderRulesMarkdown();
  // Regenerate with UPDATE_RULES_DOC=1 after adding or changing a rule.
  if (process.env.UPDATE_RULES_DOC === '1') writeFileSync(docPath, expected);
  expect(readFileSync(docPath, 'utf8')).toBe(expected);
});

test('the generated document has a table row and a section for every rule', () => {
  const markdown = renderRulesMarkdown();
  for (const rule of RULES) {
    expect(markdown).toContain(`| [\`${rule.id}\`](#${rule.id}) | ${rule.meta.category} | ${rule.meta.severity} |`);
    expect(markdown).toContain(`\n## ${rule.id}\n`);
  }
});
