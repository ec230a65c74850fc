/* eslint-disable no-control-regex -- these tests look for raw control characters on purpose */
import { describe, expect, it } from 'vitest';
import type { Finding } from '../scan/model.js';
import { markdownReporter } from './markdown.js';
import { sampleFindings, sampleReport, sampleRun } from './sample-run.js';

/**
 * What GitHub renders as markup: the markdown without fenced blocks and code spans (CommonMark rules: a span closes
 * at the next backtick run of the same length; a backslash escapes the next character).
 */
function renderedProse(markdown: string): string {
  const text = markdown.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '');
  let prose = '';
  for (let i = 0; i < text.length; ) {
    if (text[i] === '\\') {
      prose += text.slice(i, i + 2);
      i += 2;
      continue;
    }
    const opener = /^`+/.exec(text.slice(i))?.[0];
    if (!opener) {
      prose += text[i];
      i += 1;
      continue;
    }
    const closer = new RegExp(`(?<!\`)${opener}(?!\`)`, 'g');
    closer.lastIndex = i + opener.length;
    const end = closer.exec(text);
    if (end) i = end.index + opener.length;
    else {
      prose += opener;
      i += opener.length;
    }
  }
  return prose;
}

describe('markdownReporter', () => {
  const output = markdownReporter(sampleRun());

  it('has a summary table with one row per target', () => {
    expect(output).toContain('| Target | Status | Score | Grade | Critical | High | Medium | Low | Info |');
    const report = sampleReport();
    expect(output).toContain(`| \`npm:weather-mcp@1.2.0\` | ⚠️ partial | ${report.score} | **${report.grade}** | 1 | 1 | 1 | 1 | 1 |`);
    // A target nobody looked at has no score, never a clean A.
    expect(output).toContain('| `example (https://mcp.example.com/mcp)` | ⛔ not scanned | – | – | 0 | 0 | 0 | 0 | 0 |');
    expect(output).toContain('> **Partly scanned:**\n> - 1 file not parsed');
  });

  it('has a findings table whose rows keep their column count whatever the text contains', () => {
    const rows = output.split('\n').filter((line) => /^\| (🔴|🟠|🟡|🔵|⚪)/.test(line));
    expect(rows).toHaveLength(6);
    for (const row of rows) expect(row.split(/(?<!\\)\|/).length).toBe(7);
    expect(output).toContain('| 🟠 high (dismissed) | `ssrf` |');
  });

  it('puts details in collapsible sections with evidence, flow and judges', () => {
    expect(output.match(/<details>/g)).toHaveLength(6);
    expect(output).toContain('<summary><b>critical</b> · <code>command-injection</code> · <code>src/my tools/run.ts:42:5</code></summary>');
    expect(output).toContain('1. *tool-input* `src/my tools/run.ts:30` parameter cmd of tool run\\_task');
    expect(output).toContain('**Judges:** confirm 2\\, uncertain 1 → confirm');
  });

  it('never lets scanned text become HTML, links or mentions', () => {
    const prose = renderedProse(output);
    expect(output).toContain('<script>alert(1)</script>'); // shown, inside a fence
    expect(prose).not.toContain('<script>');
    expect(prose).not.toMatch(/(?<!\\)\[x\]\(javascript/);
    expect(prose).not.toMatch(/@octocat/);
    // the ``` inside the evidence cannot close its fence: a longer fence is used
    expect(output).toContain('````text\n"postinstall"');
  });

  it('keeps a mention inside a rule message out of the rendered prose', () => {
    const finding: Finding = { ...sampleFindings()[3]!, message: 'Token belongs to @someone | <b>x</b>' };
    const text = markdownReporter(sampleRun([sampleReport([finding])]));
    expect(renderedProse(text)).not.toMatch(/@someone|<b>x/);
    expect(text).toContain('`@someone`');
  });

  it('turns backtick-quoted names in messages into code spans that cannot be broken out of', () => {
    expect(output).toContain('Tool input `cmd` of run\\_task');
    const finding: Finding = { ...sampleFindings()[3]!, message: 'Tool `x<img src=y>` and `a``b` or ` stray' };
    const text = markdownReporter(sampleRun([sampleReport([finding])]));
    expect(text).toContain('`x<img src=y>`');
    expect(renderedProse(text)).not.toMatch(/<img/);
    expect(text).toContain('\\` stray');
  });

  it('shows hidden characters visibly', () => {
    expect(output).toContain('id_rsa<U+200B>');
    expect(output).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u200B\u202E\u{E0049}]/u);
  });

  it('lists failed targets and stays under GitHub’s comment limit with many findings', () => {
    expect(output).toContain('### Targets that could not be scanned');
    expect(output).toContain('- `pypi:missing-server==9.9`: PyPI');
    const many = Array.from({ length: 3000 }, (_, i): Finding => ({
      ...sampleFindings()[0]!,
      id: `id${i}`,
      evidence: 'x'.repeat(150) + '\n'.repeat(3),
    }));
    const big = markdownReporter(sampleRun([sampleReport(many)]));
    expect(big.length).toBeLessThan(65_536);
    expect(big).toMatch(/more findings not listed/);
    expect(big).toMatch(/more findings not detailed here/);
    const detailed = big.match(/<details>/g)?.length ?? 0;
    expect(detailed).toBeGreaterThan(10);
    expect(detailed).toBeLessThan(3000);
  });
});
