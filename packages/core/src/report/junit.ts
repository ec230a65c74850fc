import { create } from 'xmlbuilder2';
import { getRule } from '../rules/index.js';
import type { Finding, ScanReport } from '../scan/model.js';
import {
  checkoutPath,
  coverageNote,
  failsRun,
  findingLocation,
  reportFailOn,
  scoreLabel,
  targetTitle,
  visibleBlock,
  visibleLine,
  type FailPolicy,
} from './common.js';
import type { ScanRun } from './schema.js';

/**
 * JUnit XML for CI systems that read test reports (Jenkins, GitLab, Azure Pipelines, CircleCI, Buildkite …).
 *
 * One <testsuite> per target and one <testcase> per finding, named `rule-id at file:line`: each finding then shows as
 * its own line with its own message in every one of those UIs, and GitLab's merge-request widget, which compares
 * test names between the base and the branch, lists a new finding as a newly failed test. A finding at or above
 * --fail-on is a <failure>; one below it passes (its text in <system-out>), as it does not fail the run either.
 *
 * Every target also has a `coverage` testcase, so a clean target is a passing test rather than an empty suite and
 * what was not scanned never reads as clean: a target not scanned is an <error>, a partly scanned one an <error>
 * under --fail-on-partial and <skipped> (with the reasons) otherwise; a target that failed is a suite whose one
 * testcase is an <error>. Findings the judge panel dismissed are left out, as in SARIF.
 *
 * Scanned text goes through `visible`: control characters (which XML 1.0 cannot carry even escaped), bidi overrides
 * and zero-width characters are written as `<U+XXXX>`; xmlbuilder2 escapes the markup characters.
 */
export function junitReporter(run: ScanRun, policy: FailPolicy = {}): string {
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele('testsuites', { name: 'svc' });
  const totals = { tests: 0, failures: 0, errors: 0, skipped: 0, time: 0 };

  for (const report of run.reports) {
    const suite = root.ele('testsuite');
    const counts = { tests: 0, failures: 0, errors: 0, skipped: 0 };
    const time = (report.timings.total ?? 0) / 1000;
    const properties = suite.ele('properties');
    const property = (name: string, value: string): void => void properties.ele('property', { name, value: visibleLine(value) });
    property('svc.target', report.target.input);
    property('svc.mode', report.mode);
    property('svc.score', scoreLabel(report));
    property('svc.coverage', report.coverage.status);
    property('svc.fail-on', reportFailOn(report, policy));

    const classname = `svc.${visibleLine(report.target.input)}`;
    const coverage = suite.ele('testcase', { classname, name: 'coverage', time: seconds(time) });
    counts.tests += 1;
    const note = coverageNote(report);
    if (note && (report.coverage.status === 'not-scanned' || policy.failOnPartial)) {
      coverage.ele('error', { message: note, type: `svc.${report.coverage.status}` }).txt(note);
      counts.errors += 1;
    } else if (note) {
      coverage.ele('skipped', { message: note });
      counts.skipped += 1;
    }

    for (const finding of report.findings) {
      if (finding.consensus === 'dismiss') continue;
      counts.tests += 1;
      const { name, file, line } = caseName(report, finding);
      const testcase = suite.ele('testcase', { classname, name, ...(file ? { file, line } : {}), time: '0' });
      const detail = findingDetail(report, finding);
      if (failsRun(report, finding, policy)) {
        testcase
          .ele('failure', { message: `${finding.severity}: ${visibleLine(finding.message)}`, type: finding.ruleId })
          .txt(detail);
        counts.failures += 1;
      } else {
        testcase.ele('system-out').txt(detail);
      }
    }

    suite.att({
      name: visibleLine(targetTitle(report)),
      tests: String(counts.tests),
      failures: String(counts.failures),
      errors: String(counts.errors),
      skipped: String(counts.skipped),
      time: seconds(time),
      timestamp: report.startedAt,
    });
    addTotals(totals, counts, time);
  }

  for (const failure of run.errors) {
    const input = visibleLine(failure.input);
    const suite = root.ele('testsuite', { name: input, tests: '1', failures: '0', errors: '1', skipped: '0', time: '0' });
    suite
      .ele('testcase', { classname: `svc.${input}`, name: 'scan', time: '0' })
      .ele('error', { message: visibleLine(failure.message), type: 'svc.failed' })
      .txt(visibleBlock(failure.message));
    addTotals(totals, { tests: 1, failures: 0, errors: 1, skipped: 0 }, 0);
  }

  root.att({
    tests: String(totals.tests),
    failures: String(totals.failures),
    errors: String(totals.errors),
    skipped: String(totals.skipped),
    time: seconds(totals.time),
  });
  return `${root.end({ prettyPrint: true })}\n`;
}

/** `rule-id at file:line`, `rule-id at tool get_weather › description`, or the rule id alone. */
function caseName(report: ScanReport, finding: Finding): { name: string; file?: string; line?: string } {
  const where = findingLocation(report, finding);
  if (finding.tool) {
    const { kind, name, field } = finding.tool;
    const file = where ? visibleLine(checkoutPath(report, where.file)) : undefined;
    return { name: `${finding.ruleId} at ${kind} ${visibleLine(name)} › ${visibleLine(field)}`, file, line: where ? String(Math.max(1, where.line)) : undefined };
  }
  if (!where) return { name: finding.ruleId };
  const file = visibleLine(checkoutPath(report, where.file));
  const line = String(Math.max(1, where.line));
  return { name: `${finding.ruleId} at ${file}:${line}`, file, line };
}

function findingDetail(report: ScanReport, finding: Finding): string {
  const rule = getRule(finding.ruleId)?.meta;
  const where = findingLocation(report, finding);
  const lines = [
    visibleBlock(finding.message),
    '',
    `rule: ${finding.ruleId}${rule ? ` (${rule.title})` : ''}`,
    `severity: ${finding.severity}, category: ${finding.category}, confidence: ${finding.confidence}`,
    ...(where ? [`location: ${visibleLine(checkoutPath(report, where.file))}:${Math.max(1, where.line)}`] : []),
    ...(finding.tool ? [`tool: ${finding.tool.kind} ${visibleLine(finding.tool.name)} › ${visibleLine(finding.tool.field)}`] : []),
    ...(rule?.cwe.length ? [`CWE: ${rule.cwe.join(', ')}`] : []),
    ...(rule ? [`remediation: ${rule.remediation}`] : []),
  ];
  if (finding.evidence) lines.push('', 'evidence:', visibleBlock(finding.evidence));
  return lines.join('\n');
}

function addTotals(totals: { tests: number; failures: number; errors: number; skipped: number; time: number }, counts: Omit<typeof totals, 'time'>, time: number): void {
  totals.tests += counts.tests;
  totals.failures += counts.failures;
  totals.errors += counts.errors;
  totals.skipped += counts.skipped;
  totals.time += time;
}

function seconds(value: number): string {
  return value.toFixed(3);
}
