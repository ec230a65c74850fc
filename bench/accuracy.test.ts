import { readFileSync } from 'node:fs';
import { CATEGORIES, type Category, type Finding, type Severity } from '@svc/core';
import { describe, expect, it } from 'vitest';
import {
  CLASSES,
  checkSummary,
  evaluateAdvisory,
  evaluateClean,
  formatModeMarkdown,
  formatModeText,
  matchFindings,
  packagesToScan,
  summarize,
  validateCorpus,
  type AccuracyCorpus,
  type AdvisoryEntry,
} from './accuracy.mjs';
import { formatTable } from './measure.mjs';

function finding(category: Category, severity: Severity, file?: string, line = 1, ruleId = 'some-rule'): Finding {
  return {
    id: `${ruleId}:${file ?? 'none'}:${line}`,
    ruleId,
    category,
    severity,
    confidence: 0.9,
    message: `${ruleId} at ${file}:${line}`,
    evidence: '',
    ...(file ? { location: { file, line, column: 1 } } : {}),
  };
}

function advisory(overrides: Partial<AdvisoryEntry> = {}): AdvisoryEntry {
  return {
    id: 'CVE-2025-00001',
    package: 'demo-mcp',
    vulnerable: '1.0.0',
    fixed: '1.0.1',
    class: 'command-injection',
    categories: ['command-injection'],
    file: 'dist/index.js',
    line: 40,
    source: 'tool-input',
    summary: 'A tool argument is pasted into a shell command string and run.',
    shipsInPackage: true,
    ...overrides,
  };
}

const report = (score: number, findings: Finding[], dismissed: Finding[] = []) => ({ report: { score, findings, dismissed } });

describe('matchFindings', () => {
  it('needs the category, medium or higher severity and the labelled file, and reports the line distance', () => {
    const entry = advisory();
    const matches = matchFindings(entry, [
      finding('command-injection', 'high', 'dist/index.js', 52, 'shell'),
      finding('command-injection', 'low', 'dist/index.js', 40, 'too-low'),
      finding('path-traversal', 'critical', 'dist/index.js', 40, 'wrong-category'),
      finding('command-injection', 'critical', 'dist/other.js', 40, 'wrong-file'),
      finding('command-injection', 'medium', 'dist/index.js', 38, 'closest'),
    ]);
    expect(matches.map((match) => [match.ruleId, match.lineDistance])).toEqual([
      ['closest', 2],
      ['shell', 12],
    ]);
  });

  it('uses the fixed build file name on the fixed version', () => {
    const entry = advisory({ file: 'dist/chunk-A.js', fixedFile: 'dist/chunk-B.js' });
    const findings = [finding('command-injection', 'high', 'dist/chunk-B.js', 10)];
    expect(matchFindings(entry, findings)).toHaveLength(0);
    expect(matchFindings(entry, findings, { fixed: true })).toHaveLength(1);
  });

  it('takes a finding of the category anywhere, even without a location, for exposed-http flaws', () => {
    const entry = advisory({ class: 'exposed-http', categories: ['insecure-transport'] });
    const matches = matchFindings(entry, [finding('insecure-transport', 'medium', 'lib/server.js', 7), finding('insecure-transport', 'high')]);
    expect(matches).toHaveLength(2);
    expect(matches.every((match) => match.lineDistance === null)).toBe(true);
  });
});

describe('evaluateAdvisory', () => {
  const hit = finding('command-injection', 'critical', 'dist/index.js', 41);

  it('is a true positive that the fix cures when the fixed version has no matching finding', () => {
    const result = evaluateAdvisory(advisory(), report(40, [hit]), report(95, []));
    expect(result).toMatchObject({ detected: true, bestLineDistance: 1, fixedBetter: true, scoreVulnerable: 40, scoreFixed: 95 });
    expect(result.fixedMatches).toEqual([]);
  });

  it('counts a still-matching finding on the fixed version, and fixed-better then needs a strictly higher score', () => {
    const same = evaluateAdvisory(advisory(), report(40, [hit]), report(40, [hit]));
    expect(same.fixedMatches).toHaveLength(1);
    expect(same.fixedBetter).toBe(false);
    expect(evaluateAdvisory(advisory(), report(40, [hit]), report(41, [hit])).fixedBetter).toBe(true);
  });

  it('records a miss, the matches the judges dismissed, and a version that could not be scanned', () => {
    const missed = evaluateAdvisory(advisory({ fixed: null }), report(100, [], [hit]), undefined);
    expect(missed).toMatchObject({ detected: false, dismissedMatches: 1, scanned: true });
    expect(missed.fixedBetter).toBeUndefined();
    // A miss is not "cured" by a fixed version that also has no finding.
    expect(evaluateAdvisory(advisory(), report(100, []), report(100, [])).fixedBetter).toBeUndefined();
    const unscanned = evaluateAdvisory(advisory(), { error: '404' }, undefined);
    expect(unscanned).toMatchObject({ scanned: false, detected: false, error: '404' });
  });
});

describe('summarize', () => {
  const hit = finding('command-injection', 'high', 'dist/index.js', 40);
  const results = [
    evaluateAdvisory(advisory(), report(40, [hit]), report(90, [])),
    evaluateAdvisory(advisory({ id: 'CVE-2025-00002' }), report(40, [hit]), report(40, [hit])),
    evaluateAdvisory(advisory({ id: 'CVE-2025-00003', class: 'path-traversal', categories: ['path-traversal'] }), report(100, []), report(100, [])),
    // Excluded from recall: the flaw is not in the tarball.
    evaluateAdvisory(advisory({ id: 'CVE-2025-00004', shipsInPackage: false }), report(100, []), undefined),
  ];
  const clean = [
    evaluateClean({ name: 'a', version: '1.0.0', note: '' }, report(100, [finding('secrets', 'medium', 'x.js')])),
    evaluateClean({ name: 'b', version: '1.0.0', note: '' }, report(60, [finding('ssrf', 'high', 'y.js', 3), finding('ssrf', 'critical', 'y.js', 9)])),
    evaluateClean({ name: 'c', version: '1.0.0', note: '' }, { error: 'gone' }),
  ];
  const summary = summarize(results, clean);

  it('counts TP and FN over usable advisories and the FP side in findings', () => {
    expect(summary).toMatchObject({ usable: 3, tp: 2, fn: 1, excluded: 1, fixedScanned: 2, fixedBetter: 1, fixedFalsePositives: 1 });
    expect(summary.recall).toBeCloseTo(2 / 3);
    // 2 TP, 1 finding still matching a fixed version, 2 high/critical findings on one clean server.
    expect(summary.precision).toBeCloseTo(2 / 5);
    expect(summary).toMatchObject({ cleanScanned: 2, cleanWithSerious: 1, cleanSeriousFindings: 2, cleanRate: 0.5 });
  });

  it('splits by class without the clean-server findings', () => {
    expect(summary.byClass['command-injection']).toMatchObject({ usable: 2, tp: 2, fn: 0, fixedFalsePositives: 1 });
    expect(summary.byClass['command-injection']?.precision).toBeCloseTo(2 / 3);
    expect(summary.byClass['path-traversal']).toMatchObject({ usable: 1, tp: 0, fn: 1, recall: 0 });
  });

  it('fails the check below 85 % recall or 90 % clean servers', () => {
    expect(checkSummary(summary).map((verdict) => verdict.pass)).toEqual([false, false]);
    const good = { ...summary, recall: 0.9, cleanRate: 0.95 };
    expect(checkSummary(good).map((verdict) => verdict.pass)).toEqual([true, true]);
  });

  it('prints the formula, the misses and the clean-server findings as text and Markdown', () => {
    const result = { mode: 'fast' as const, advisories: results, clean, summary };
    const text = formatModeText(result, formatTable);
    expect(text).toContain('precision = TP / (TP + findings that still match on fixed versions');
    expect(text).toContain('CVE-2025-00003 demo-mcp@1.0.0 dist/index.js:40');
    expect(text).toContain('b@1.0.0 critical some-rule y.js:9');
    const markdown = formatModeMarkdown(result);
    expect(markdown).toContain('| all | 3 | 2 | 1 | 1/2 | 1 | 66.7 % | 40.0 % |');
    expect(markdown).toContain('| CVE-2025-00004 | `demo-mcp@1.0.0` | command-injection | excluded |');
  });
});

describe('bench/accuracy.json', () => {
  const corpus = JSON.parse(readFileSync(new URL('./accuracy.json', import.meta.url), 'utf8')) as AccuracyCorpus;

  it('is valid: required fields, exact versions, CVE/GHSA ids, known classes and categories', () => {
    expect(validateCorpus(corpus, CATEGORIES)).toEqual([]);
    expect(corpus.advisories.every((entry) => CLASSES.includes(entry.class))).toBe(true);
  });

  it('has 15+ usable advisories and 25+ clean servers, none of them also labelled vulnerable', () => {
    expect(corpus.advisories.filter((entry) => entry.shipsInPackage).length).toBeGreaterThanOrEqual(15);
    expect(corpus.clean.length).toBeGreaterThanOrEqual(25);
    const vulnerable = new Set(corpus.advisories.map((entry) => `${entry.package}@${entry.vulnerable}`));
    expect(corpus.clean.filter((entry) => vulnerable.has(`${entry.name}@${entry.version}`))).toEqual([]);
  });

  it('rejects malformed entries', () => {
    const broken = {
      advisories: [{ ...advisory(), id: 'CVE-25-1', vulnerable: '^1.0.0', class: 'xss', categories: ['xss'], line: 0 }],
      clean: [{ name: 'x', version: 'latest', note: '' }],
    };
    const problems = validateCorpus(broken, CATEGORIES);
    for (const expected of ['id must be', 'vulnerable must be', 'class must be', 'categories must be svc', 'line must be', 'version must be exact', 'note is required']) {
      expect(problems.some((problem) => problem.includes(expected))).toBe(true);
    }
  });

  it('lists each needed package version once', () => {
    const wanted = packagesToScan(corpus);
    const keys = wanted.map((entry) => `${entry.name}@${entry.version}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toContain('@modelcontextprotocol/server-filesystem@0.6.2');
  });
});
