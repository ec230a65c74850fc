/* eslint-disable no-control-regex -- these tests look for raw control characters on purpose */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import AjvDraft04 from 'ajv-draft-04';
import type { Log, ReportingDescriptor, Result } from 'sarif';
import { describe, expect, it } from 'vitest';
import { ruleCatalog } from '../rules/index.js';
import type { Finding, ScanReport } from '../scan/model.js';
import { sampleFindings, sampleRemoteReport, sampleReport, sampleRun } from './sample-run.js';
import { sarifReporter, toSarif } from './sarif.js';

const require = createRequire(import.meta.url);
const officialSchema = JSON.parse(
  readFileSync(require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'), 'utf8'),
) as Record<string, unknown>;
// The official schema is draft-04 with `format: uri`/`date-time` (not what this test is about), keywords ajv's strict
// mode rejects, and a language-tag pattern that is not valid with the `u` flag.
const ajv = new AjvDraft04.default({ strict: false, validateFormats: false, unicodeRegExp: false, allErrors: true });
const validateSarif = ajv.compile(officialSchema);

function expectValid(log: unknown): void {
  const valid = validateSarif(log);
  expect(valid, ajv.errorsText(validateSarif.errors, { separator: '\n' })).toBe(true);
}

/** The sample, with its first finding re-pointed at a rule the catalog really has (when the catalog has any). */
function runWithCatalogRule() {
  const catalog = ruleCatalog();
  const findings = sampleFindings();
  if (catalog[0]) {
    findings[0]!.ruleId = catalog[0].id;
    findings[0]!.category = catalog[0].category;
  }
  return { run: sampleRun([sampleReport(findings), sampleRemoteReport()]), catalogRule: catalog[0] };
}

function resultFor(log: Log, findingId: string): Result {
  const result = log.runs.flatMap((run) => run.results ?? []).find((r) => r.partialFingerprints?.['svc/v1'] === findingId);
  if (!result) throw new Error(`no result for ${findingId}`);
  return result;
}

describe('sarifReporter', () => {
  const { run, catalogRule } = runWithCatalogRule();
  const output = sarifReporter(run);
  const log = JSON.parse(output) as Log;

  it('is valid SARIF 2.1.0 by the official schema', () => {
    expect(log.version).toBe('2.1.0');
    expectValid(log);
  });

  it('rejects broken SARIF (the validation can fail)', () => {
    const broken = structuredClone(log) as unknown as { runs: Array<{ results: Array<Record<string, unknown>> }> };
    broken.runs[0]!.results[0]!.level = 'catastrophic';
    expect(validateSarif(broken)).toBe(false);
  });

  it('writes one run per target with a unique automationDetails.id (GitHub category)', () => {
    expect(log.runs).toHaveLength(2);
    const ids = log.runs.map((r) => r.automationDetails?.id);
    expect(new Set(ids).size).toBe(2);
    expect(ids[0]).toBe('svc/npm-weather-mcp@1.2.0/');
    const twice = toSarif(sampleRun([sampleReport(), sampleReport()]));
    expect(twice.runs.map((r) => r.automationDetails?.id)).toEqual(['svc/npm-weather-mcp@1.2.0/', 'svc/npm-weather-mcp@1.2.0-2/']);
  });

  it('describes the driver and every catalog rule', () => {
    const driver = log.runs[0]!.tool.driver;
    expect(driver.name).toBe('svc');
    expect(driver.version).toBe('0.1.0');
    expect(driver.informationUri).toMatch(/^https:\/\//);
    const ids = driver.rules!.map((rule) => rule.id);
    for (const rule of ruleCatalog()) expect(ids).toContain(rule.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives catalog rules help, tags, security-severity and precision', () => {
    if (!catalogRule) return; // the catalog is empty in this build: covered by the synthesised-rule test
    const descriptor = log.runs[0]!.tool.driver.rules!.find((rule) => rule.id === catalogRule.id)!;
    expect(descriptor.shortDescription?.text).toBe(catalogRule.title);
    expect(descriptor.fullDescription?.text).toBe(catalogRule.description);
    expect(descriptor.help?.text).toContain(catalogRule.remediation);
    expect(descriptor.help?.markdown).toContain('**Remediation:**');
    expect(descriptor.help?.markdown).toContain(catalogRule.owasp);
    const tags = descriptor.properties?.tags as string[];
    expect(tags).toContain(catalogRule.category);
    expect(tags).toContain('security');
    if (catalogRule.cwe.length > 0) expect(tags.some((tag) => tag.startsWith('external/cwe/cwe-'))).toBe(true);
    if (catalogRule.severity !== 'info') {
      expect(Number(descriptor.properties?.['security-severity'])).toBeGreaterThan(0);
    }
    expect(['very-high', 'high', 'medium', 'low']).toContain(descriptor.properties?.precision);
    expect(descriptor.defaultConfiguration?.level).toMatch(/error|warning|note/);
  });

  it('synthesises a rule entry for a rule id the catalog does not know', () => {
    const rules = log.runs[0]!.tool.driver.rules!;
    const result = resultFor(log, '99aabbccddeeff00');
    expect(result.ruleId).toBe('not-in-the-catalog');
    const descriptor = rules[result.ruleIndex!] as ReportingDescriptor;
    expect(descriptor.id).toBe('not-in-the-catalog');
    expect(descriptor.properties?.tags).toEqual(['secrets', 'security']);
    expect(descriptor.properties?.['security-severity']).toBe('3.0');
  });

  it('points every result at its rule by index', () => {
    for (const sarifRun of log.runs) {
      for (const result of sarifRun.results ?? []) {
        expect(sarifRun.tool.driver.rules![result.ruleIndex!]!.id).toBe(result.ruleId);
      }
    }
  });

  it('maps a code finding to a %SRCROOT%-relative, percent-encoded location with a region and a code flow', () => {
    const result = resultFor(log, 'a1b2c3d4e5f60718');
    expect(result.level).toBe('error');
    const physical = result.locations![0]!.physicalLocation!;
    expect(physical.artifactLocation).toEqual({ uri: 'src/my%20tools/run.ts', uriBaseId: '%SRCROOT%' });
    expect(physical.region).toMatchObject({ startLine: 42, startColumn: 5, endLine: 44, endColumn: 7 });
    expect(physical.region?.snippet?.text).toContain('exec(`git ${cmd}`');
    const steps = result.codeFlows![0]!.threadFlows[0]!.locations;
    expect(steps).toHaveLength(3);
    expect(steps.map((step) => step.location?.physicalLocation?.region?.startLine)).toEqual([30, 38, 42]);
    expect(steps[2]!.location?.message?.text).toBe('passed to child_process.exec');
    // The source step is marked, and its kind is a result property for filtering alerts.
    expect(steps[0]).toMatchObject({ kinds: ['source'], properties: { 'svc/sourceKind': 'tool-input' } });
    expect(steps[1]!.kinds).toBeUndefined();
    expect(result.partialFingerprints).toEqual({ 'svc/v1': 'a1b2c3d4e5f60718' });
    expect(result.properties).toMatchObject({ confidence: 0.95, consensus: 'confirm', 'svc/sourceKind': 'tool-input' });
  });

  it('locates a tool-description finding at the tool definition, with a logical location for tool and field', () => {
    const result = resultFor(log, '0f1e2d3c4b5a6978');
    const location = result.locations![0]!;
    expect(location.physicalLocation?.artifactLocation?.uri).toBe('src/index.ts');
    expect(location.physicalLocation?.region).toMatchObject({ startLine: 10, startColumn: 3 });
    expect(location.logicalLocations?.[0]).toMatchObject({ name: 'get_weather', fullyQualifiedName: 'get_weather.description' });
    expect(result.properties?.category).toBe('tool-poisoning');
  });

  it('shows hidden characters visibly and never writes them raw', () => {
    const result = resultFor(log, '0f1e2d3c4b5a6978');
    expect(result.message.text).toContain('id_rsa<U+200B>');
    expect(result.properties?.evidence).toContain('<U+202E>gnp.evil');
    expect(output.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001F\u200B\u202E\u{E0049}]/u);
  });

  it('anchors a finding that points at no file to the npm package manifest', () => {
    const result = resultFor(log, '1122334455667788');
    expect(result.locations).toHaveLength(1);
    expect(result.locations![0]!.physicalLocation).toMatchObject({
      artifactLocation: { uri: 'package.json', uriBaseId: '%SRCROOT%' },
      region: { startLine: 1 },
    });
    expect(result.locations![0]!.logicalLocations?.[0]).toMatchObject({ name: 'weather-mcp', kind: 'module' });
    expect(result.message.text).toContain('Evidence: "postinstall"');
  });

  it('never writes a result without a physical location (GitHub rejects the whole file)', () => {
    const unlocated = sampleFindings()[2]!;
    const directory: ScanReport = {
      ...sampleReport([unlocated]),
      target: { ...sampleReport().target, kind: 'directory', input: '.' },
      tools: [],
    };
    const single = toSarif(sampleRun([directory]));
    expectValid(single);
    expect(single.runs[0]!.results).toEqual([]);
    expect(single.runs[0]!.properties?.unlocatedFindings).toEqual([unlocated.id]);
    const notes = single.runs[0]!.invocations![0]!.toolExecutionNotifications!;
    expect(notes.some((note) => note.message.text?.includes(unlocated.id))).toBe(true);

    const withManifest: ScanReport = {
      ...directory,
      findings: [unlocated, { ...sampleFindings()[3]!, location: { file: 'pyproject.toml', line: 4, column: 1 } }],
    };
    const anchored = toSarif(sampleRun([withManifest])).runs[0]!.results!;
    expect(anchored).toHaveLength(2);
    expect(anchored[0]!.locations![0]!.physicalLocation?.artifactLocation?.uri).toBe('pyproject.toml');
    for (const sarifRun of log.runs) {
      for (const result of sarifRun.results ?? []) expect(result.locations?.[0]?.physicalLocation?.artifactLocation?.uri).toBeTruthy();
    }
  });

  it('leaves out findings the judges dismissed and targets that failed', () => {
    expect(output).not.toContain('cafef00dcafef00d');
    expect(output).not.toContain('missing-server');
  });

  it('makes paths relative to the checkout for a directory scanned by relative path, and clamps columns to ≥ 1', () => {
    const finding: Finding = { ...sampleFindings()[3]!, location: { file: 'src/a.ts', line: 0, column: 0 } };
    const report: ScanReport = { ...sampleReport([finding]), target: { ...sampleReport().target, kind: 'directory', input: './servers/weather' } };
    const single = toSarif(sampleRun([report]));
    expectValid(single);
    const physical = single.runs[0]!.results![0]!.locations![0]!.physicalLocation!;
    expect(physical.artifactLocation?.uri).toBe('servers/weather/src/a.ts');
    expect(physical.region).toEqual(expect.objectContaining({ startLine: 1 }));
    expect(physical.region?.startColumn).toBeUndefined();
  });

  it('is valid for a run with no reports and for a clean target', () => {
    expectValid(toSarif(sampleRun([])));
    const clean = toSarif(sampleRun([sampleReport([])]));
    expectValid(clean);
    expect(clean.runs[0]!.results).toEqual([]);
  });
});
