import type {
  Location,
  Log,
  ReportingDescriptor,
  Result,
  Run,
  ThreadFlowLocation,
} from 'sarif';
import { getRule, ruleCatalog, type RuleCatalogEntry } from '../rules/index.js';
import { OWASP_MCP_TOP_10 } from '../rules/owasp.js';
import { SEVERITIES, type Finding, type ScanReport, type Severity, type SourceLocation } from '../scan/model.js';
import { checkoutPath, clip, coverageNote, findingLocation, jsonWithVisibleEscapes, visible, visibleLine } from './common.js';
import type { ScanRun } from './schema.js';

export const SVC_INFORMATION_URI = 'https://svc.dev';
const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
const SRCROOT = '%SRCROOT%';

/** GitHub code scanning ranks security alerts by this score (CVSS-like: ≥ 9 critical, ≥ 7 high, ≥ 4 medium). */
const SECURITY_SEVERITY: Record<Severity, string | undefined> = {
  critical: '9.5',
  high: '8.0',
  medium: '5.5',
  low: '3.0',
  info: undefined, // no score: GitHub then treats the rule as a plain note, not a security alert
};

const LEVEL: Record<Severity, Result.level> = {
  critical: 'error',
  high: 'error',
  medium: 'warning',
  low: 'note',
  info: 'note',
};

export function sarifReporter(run: ScanRun): string {
  return `${jsonWithVisibleEscapes(JSON.stringify(toSarif(run), null, 2))}\n`;
}

/**
 * One SARIF run per scanned target, each with its own `automationDetails.id`: GitHub code scanning rejects several
 * runs of one tool under one category, and per-target runs keep each target's alerts separately tracked (a target
 * whose findings are fixed closes only its own alerts). Uris are relative to the checkout (see checkoutPath).
 *
 * Left out on purpose: targets that failed (an empty run would tell GitHub every alert of that category is fixed)
 * and findings the judges dismissed (GitHub ignores SARIF `suppressions` and would open them as alerts).
 */
export function toSarif(run: ScanRun): Log {
  const catalog = ruleCatalog();
  const categories = new Set<string>();
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: run.reports.map((report) => toSarifRun(run, report, catalog, uniqueCategory(report, categories))),
  };
}

function toSarifRun(run: ScanRun, report: ScanReport, catalog: RuleCatalogEntry[], category: string): Run {
  const findings = report.findings.filter((finding) => finding.consensus !== 'dismiss');
  const rules = catalog.map(catalogDescriptor);
  const ruleIndex = new Map(rules.map((rule, index) => [rule.id, index]));
  for (const finding of findings) {
    if (ruleIndex.has(finding.ruleId)) continue;
    ruleIndex.set(finding.ruleId, rules.length);
    rules.push(synthesisedDescriptor(finding, findings));
  }

  const anchor = fallbackFile(report);
  const results: Result[] = [];
  const unlocated: Finding[] = [];
  for (const finding of findings) {
    const result = toResult(report, finding, ruleIndex.get(finding.ruleId) ?? 0, anchor);
    if (result) results.push(result);
    else unlocated.push(finding);
  }

  const version = run.generator.version;
  return {
    tool: {
      driver: {
        name: 'svc',
        version,
        ...(/^\d+\.\d+\.\d+/.test(version) ? { semanticVersion: version } : {}),
        informationUri: SVC_INFORMATION_URI,
        rules,
      },
    },
    automationDetails: {
      id: `${category}/`,
      description: { text: `svc ${report.mode} scan of ${visibleLine(report.target.input)}` },
    },
    invocations: [
      {
        // A target whose code was not looked at is a failed execution, never an empty (all clear) run.
        executionSuccessful: report.coverage.status !== 'not-scanned',
        startTimeUtc: report.startedAt,
        toolExecutionNotifications: [
          ...(report.coverage.status === 'scanned'
            ? []
            : [
                {
                  level: report.coverage.status === 'not-scanned' ? ('error' as const) : ('warning' as const),
                  message: { text: `svc ${coverageNote(report)}` },
                },
              ]),
          ...report.problems.map((problem) => ({
            level: 'warning' as const,
            message: { text: `${visibleLine(problem.file)}: ${visibleLine(problem.message)}` },
          })),
          ...unlocated.map((finding) => ({
            level: 'note' as const,
            message: {
              text: `${finding.ruleId} (${finding.severity}): ${visibleLine(finding.message)} [finding ${finding.id} has no file ` +
                'to point at and is left out of the results; see the JSON report]',
            },
          })),
        ],
      },
    ],
    results,
    properties: {
      target: { kind: report.target.kind, input: report.target.input, name: report.target.name, version: report.target.version },
      mode: report.mode,
      score: report.score,
      grade: report.grade,
      counts: report.counts,
      ...(unlocated.length > 0 ? { unlocatedFindings: unlocated.map((finding) => finding.id) } : {}),
      coverage: report.coverage,
    },
  };
}

/**
 * GitHub code scanning rejects the whole upload when any result lacks a physical location, so a finding that points
 * at no file (registry metadata, say) is anchored at line 1 of the target's manifest; with no manifest known it
 * is returned as undefined and reported as a notification instead.
 */
function toResult(report: ScanReport, finding: Finding, ruleIndex: number, anchor: string | undefined): Result | undefined {
  const where = findingLocation(report, finding) ?? (anchor ? { file: anchor, line: 1, column: 1 } : undefined);
  if (!where) return undefined;
  const location: Location = {
    physicalLocation: {
      artifactLocation: artifactLocation(checkoutPath(report, where.file)),
      region: {
        ...region(where),
        // The evidence is the code at the finding's own location; for tool findings it is text inside a definition.
        ...(finding.location && finding.evidence ? { snippet: { text: visible(finding.evidence) } } : {}),
      },
    },
  };
  if (finding.tool) {
    const { name, kind, field } = finding.tool;
    location.message = { text: `${kind} ${visibleLine(name)} › ${visibleLine(field)}` };
    location.logicalLocations = [
      { name, fullyQualifiedName: `${name}.${field}`, kind: 'member', properties: { toolKind: kind, field } },
    ];
  }
  if (!finding.location && !finding.tool) {
    location.logicalLocations = [{ name: report.target.name, kind: 'module' }];
  }

  // Without a code location the alert would otherwise show no evidence at all.
  const evidenceNote = !finding.location && finding.evidence ? `\n\nEvidence: ${clip(visibleLine(finding.evidence), 500)}` : '';
  const result: Result = {
    ruleId: finding.ruleId,
    ruleIndex,
    level: LEVEL[finding.severity],
    message: { text: `${visible(finding.message)}${evidenceNote}` },
    locations: [location],
    partialFingerprints: { 'svc/v1': finding.id },
    properties: {
      category: finding.category,
      severity: finding.severity,
      confidence: finding.confidence,
      ...(finding.consensus ? { consensus: finding.consensus } : {}),
      ...(finding.votes?.length ? { votes: finding.votes } : {}),
      evidence: visible(finding.evidence),
      // Where the dataflow starts (tool input, an HTTP request, a remote server's answer …), for filtering alerts.
      ...(finding.flow?.[0]?.kind ? { 'svc/sourceKind': finding.flow[0].kind } : {}),
    },
  };
  // Facets of the same root cause point at their own code; their rule and message say what each adds.
  const facetLocations = (finding.facets ?? []).flatMap((facet, index): Location[] =>
    facet.location
      ? [
          {
            id: index + 1,
            physicalLocation: { artifactLocation: artifactLocation(checkoutPath(report, facet.location.file)), region: region(facet.location) },
            message: { text: `${facet.ruleId} (${facet.severity}): ${visible(facet.message)}` },
          },
        ]
      : [],
  );
  if (facetLocations.length > 0) {
    result.relatedLocations = facetLocations;
    result.properties = { ...result.properties, 'svc/facets': finding.facets!.map((facet) => facet.ruleId) };
  }
  if (finding.flow?.length) {
    result.codeFlows = [
      {
        threadFlows: [
          {
            locations: finding.flow.map(
              (step): ThreadFlowLocation => ({
                location: {
                  physicalLocation: { artifactLocation: artifactLocation(checkoutPath(report, step.file)), region: { startLine: Math.max(1, step.line) } },
                  message: { text: visible(step.note) },
                },
                ...(step.kind ? { kinds: ['source'], properties: { 'svc/sourceKind': step.kind } } : {}),
              }),
            ),
          },
        ],
      },
    ];
  }
  return result;
}

function catalogDescriptor(rule: RuleCatalogEntry): ReportingDescriptor {
  const owasp = `${rule.owasp} ${OWASP_MCP_TOP_10[rule.owasp]}`;
  const cweLinks = rule.cwe.map((cwe) => `[${cwe}](${cweUrl(cwe)})`).join(', ');
  const confidence = getRule(rule.id)?.meta.confidence;
  return {
    id: rule.id,
    shortDescription: { text: rule.title },
    fullDescription: { text: rule.description },
    help: {
      text: `${rule.description}\n\nRemediation: ${rule.remediation}\n\nCWE: ${rule.cwe.join(', ') || 'n/a'}\nOWASP MCP Top 10: ${owasp}`,
      markdown:
        `${rule.description}\n\n**Remediation:** ${rule.remediation}\n\n` +
        `**CWE:** ${cweLinks || 'n/a'}  \n**OWASP MCP Top 10:** ${owasp}`,
    },
    defaultConfiguration: { level: LEVEL[rule.severity] },
    properties: {
      tags: [rule.category, ...rule.cwe.map(cweTag), `owasp-mcp/${rule.owasp.toLowerCase()}`, 'security'],
      ...(SECURITY_SEVERITY[rule.severity] ? { 'security-severity': SECURITY_SEVERITY[rule.severity] } : {}),
      ...(confidence !== undefined ? { precision: precision(confidence) } : {}),
    },
  };
}

/** A finding from a rule the catalog does not know (a plugin, an older report): described from its findings. */
function synthesisedDescriptor(finding: Finding, findings: readonly Finding[]): ReportingDescriptor {
  const siblings = findings.filter((other) => other.ruleId === finding.ruleId);
  const worst = siblings.reduce((a, b) => (severityRank(b.severity) < severityRank(a.severity) ? b : a));
  const confidence = Math.max(...siblings.map((other) => other.confidence));
  return {
    id: finding.ruleId,
    shortDescription: { text: `${finding.ruleId} (${finding.category})` },
    defaultConfiguration: { level: LEVEL[worst.severity] },
    properties: {
      tags: [finding.category, 'security'],
      ...(SECURITY_SEVERITY[worst.severity] ? { 'security-severity': SECURITY_SEVERITY[worst.severity] } : {}),
      precision: precision(confidence),
    },
  };
}

const MANIFEST_NAMES = new Set(['package.json', 'pyproject.toml', 'setup.py', 'setup.cfg', 'server.json']);

/** The target's manifest, when the report mentions one (the shallowest), or `package.json` of an npm package. */
function fallbackFile(report: ScanReport): string | undefined {
  const mentioned = [...report.tools.map((tool) => tool.location), ...report.findings.map((finding) => finding.location)]
    .map((location) => location?.file)
    .filter((file): file is string => file !== undefined && MANIFEST_NAMES.has(file.split('/').at(-1) ?? ''))
    .sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
  if (mentioned[0]) return mentioned[0];
  // Every npm package has its package.json at the root of the tarball.
  return report.target.kind === 'npm' ? 'package.json' : undefined;
}

function artifactLocation(file: string): { uri: string; uriBaseId?: string } {
  // Remote tool definitions point at the endpoint URL, which is already an absolute URI.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(file)) return { uri: file };
  const relative = file.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
  return { uri: relative.split('/').map(encodeURIComponent).join('/'), uriBaseId: SRCROOT };
}

function region(location: SourceLocation): { startLine: number; startColumn?: number; endLine?: number; endColumn?: number } {
  const startLine = Math.max(1, location.line);
  const out: { startLine: number; startColumn?: number; endLine?: number; endColumn?: number } = { startLine };
  if (location.column >= 1) out.startColumn = location.column;
  if (location.endLine !== undefined && location.endLine >= startLine) {
    out.endLine = location.endLine;
    if (location.endColumn !== undefined && location.endColumn >= 1) out.endColumn = location.endColumn;
  }
  return out;
}

function uniqueCategory(report: ScanReport, taken: Set<string>): string {
  const key = report.target.origin ? `${report.target.origin.serverName}-${report.target.input}` : report.target.input;
  const slug =
    key
      .toLowerCase()
      .replace(/[^a-z0-9._@-]+/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '')
      .slice(0, 100) || 'target';
  let category = `svc/${slug}`;
  for (let n = 2; taken.has(category); n += 1) category = `svc/${slug}-${n}`;
  taken.add(category);
  return category;
}

function precision(confidence: number): 'very-high' | 'high' | 'medium' | 'low' {
  if (confidence >= 0.9) return 'very-high';
  if (confidence >= 0.75) return 'high';
  if (confidence >= 0.5) return 'medium';
  return 'low';
}

function cweNumber(cwe: string): string | undefined {
  return /(\d+)/.exec(cwe)?.[1];
}

function cweUrl(cwe: string): string {
  const number = cweNumber(cwe);
  return number ? `https://cwe.mitre.org/data/definitions/${number}.html` : 'https://cwe.mitre.org/';
}

/** GitHub shows `external/cwe/cwe-NNN` tags as CWE links (the form CodeQL uses, zero-padded to three digits). */
function cweTag(cwe: string): string {
  const number = cweNumber(cwe);
  return number ? `external/cwe/cwe-${number.padStart(3, '0')}` : cwe;
}

function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

