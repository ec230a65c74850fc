/* eslint-disable no-control-regex -- these tests look for raw control characters on purpose */
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { Finding, ScanReport } from '../scan/model.js';
import { gitlabSastReporter, toGitlabSast } from './gitlab-sast.js';
import { HOSTILE_EVIDENCE, sampleFindings, sampleReport, sampleRun } from './sample-run.js';

/**
 * The parts of GitLab's SAST report schema 15.x (security-report-schemas, sast-report-format.json) that GitLab
 * enforces on ingestion: required fields, enums, the time pattern and string limits. Written by hand: the published
 * schema is not on the npm registry (GitLab ships it from its own package registry), so it cannot be a dependency.
 */
const tool = {
  type: 'object',
  required: ['id', 'name', 'version', 'vendor'],
  properties: {
    id: { type: 'string', minLength: 1 },
    name: { type: 'string', minLength: 1 },
    version: { type: 'string', minLength: 1 },
    vendor: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } },
    url: { type: 'string', pattern: '^https?://.+' },
  },
};
const time = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$' };
const GITLAB_SAST_SCHEMA = {
  type: 'object',
  required: ['version', 'scan', 'vulnerabilities'],
  properties: {
    version: { type: 'string', pattern: '^15\\.\\d+\\.\\d+$' },
    scan: {
      type: 'object',
      required: ['analyzer', 'scanner', 'type', 'start_time', 'end_time', 'status'],
      properties: {
        analyzer: tool,
        scanner: tool,
        type: { const: 'sast' },
        start_time: time,
        end_time: time,
        status: { enum: ['success', 'failure'] },
        messages: {
          type: 'array',
          items: {
            type: 'object',
            required: ['level', 'value'],
            properties: { level: { enum: ['info', 'warn', 'fatal'] }, value: { type: 'string' } },
          },
        },
      },
    },
    vulnerabilities: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'identifiers', 'location'],
        properties: {
          id: { type: 'string', minLength: 1 },
          name: { type: 'string', maxLength: 255 },
          description: { type: 'string', maxLength: 1_048_576 },
          severity: { enum: ['Info', 'Unknown', 'Low', 'Medium', 'High', 'Critical'] },
          solution: { type: 'string', maxLength: 7000 },
          identifiers: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              required: ['type', 'name', 'value'],
              properties: {
                type: { type: 'string', minLength: 1 },
                name: { type: 'string', minLength: 1 },
                value: { type: 'string', minLength: 1 },
                url: { type: 'string', pattern: '^(https?|ftp)://.+' },
              },
            },
          },
          location: {
            type: 'object',
            properties: { file: { type: 'string', minLength: 1 }, start_line: { type: 'integer', minimum: 1 }, end_line: { type: 'integer', minimum: 1 } },
          },
        },
      },
    },
  },
};
const validate = new Ajv({ allErrors: true }).compile(GITLAB_SAST_SCHEMA);

function expectValid(report: unknown): void {
  const valid = validate(report);
  expect(valid, JSON.stringify(validate.errors, null, 2)).toBe(true);
}

describe('gitlabSastReporter', () => {
  const finishedAt = new Date('2026-11-23T04:00:05.250Z');

  it("writes a report GitLab's schema accepts", () => {
    const output = gitlabSastReporter(sampleRun(), { finishedAt });
    expectValid(JSON.parse(output));
    expect(output).not.toMatch(/[\u200B\u202E\u001b]/);
  });

  it('maps findings to vulnerabilities with severity, location, rule id and CWE identifiers; dismissed ones left out', () => {
    const report = toGitlabSast(sampleRun(), { finishedAt });
    expect(report.vulnerabilities.map((vulnerability) => vulnerability.severity)).toEqual(['Critical', 'High', 'Medium', 'Low', 'Info']);
    const [injection, poisoning, install] = report.vulnerabilities;
    expect(injection).toMatchObject({
      name: 'Untrusted input built into a command line or handed to a shell',
      location: { file: 'src/my tools/run.ts', start_line: 42, end_line: 44 },
      identifiers: [
        { type: 'svc_rule_id', value: 'command-injection' },
        { type: 'cwe', name: 'CWE-78', value: '78', url: 'https://cwe.mitre.org/data/definitions/78.html' },
        { type: 'cwe', name: 'CWE-77', value: '77' },
      ],
    });
    expect(injection!.solution).toMatch(/argument array/);
    // A tool-description finding points at the tool definition, and says which field.
    expect(poisoning!.location).toEqual({ file: 'src/index.ts', start_line: 10 });
    expect(poisoning!.description).toContain('In tool `get_weather` › description.');
    expect(poisoning!.description).toContain('id_rsa<U+200B>');
    expect(install!.location).toEqual({});
    expect(JSON.stringify(report)).not.toContain('ssrf');
  });

  it('gives each finding a stable UUID: the same finding keeps it, another target changes it', () => {
    const ids = toGitlabSast(sampleRun(), { finishedAt }).vulnerabilities.map((vulnerability) => vulnerability.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(toGitlabSast(sampleRun(), {}).vulnerabilities.map((vulnerability) => vulnerability.id)).toEqual(ids);
    const moved: ScanReport = { ...sampleReport(), target: { ...sampleReport().target, input: 'npm:weather-mcp@1.3.0' } };
    expect(toGitlabSast(sampleRun([moved])).vulnerabilities[0]!.id).not.toBe(ids[0]);
  });

  it('fails the scan, with fatal messages, when a target failed or was not scanned; partial is a warning', () => {
    const { scan } = toGitlabSast(sampleRun(), { finishedAt });
    expect(scan.status).toBe('failure');
    expect(scan.messages).toEqual([
      { level: 'warn', value: expect.stringMatching(/^npm:weather-mcp@1\.2\.0: partial: 1 file not parsed/) },
      { level: 'fatal', value: expect.stringMatching(/^https:\/\/mcp\.example\.com\/mcp: not scanned/) },
      { level: 'fatal', value: 'pypi:missing-server==9.9: PyPI: no release 9.9 of missing-server<U+001B>[2J' },
    ]);
    expect({ start: scan.start_time, end: scan.end_time }).toEqual({ start: '2026-11-23T04:00:00', end: '2026-11-23T04:00:05' });

    const clean: ScanReport = { ...sampleReport([]), coverage: { status: 'scanned', reasons: [] } };
    const cleanRun = { ...sampleRun([clean]), errors: [] };
    expect(toGitlabSast(cleanRun).scan).toMatchObject({ status: 'success', messages: [], end_time: '2026-11-23T04:00:00' });
    expectValid(toGitlabSast(cleanRun));
  });

  it('clips names and descriptions to the lengths GitLab accepts', () => {
    const long: Finding = { ...sampleFindings()[2]!, ruleId: 'x'.repeat(400), message: `${HOSTILE_EVIDENCE}${'y'.repeat(1_100_000)}` };
    const report = toGitlabSast(sampleRun([sampleReport([long])]), { finishedAt });
    expectValid(report);
    expect(report.vulnerabilities[0]!.name).toHaveLength(255);
  });
});
