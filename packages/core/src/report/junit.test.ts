/* eslint-disable no-control-regex -- these tests look for raw control characters on purpose */
import { describe, expect, it } from 'vitest';
import { create } from 'xmlbuilder2';
import type { Finding, ScanReport } from '../scan/model.js';
import { junitReporter } from './junit.js';
import { HOSTILE_EVIDENCE, sampleFindings, sampleRemoteReport, sampleReport, sampleRun } from './sample-run.js';

interface Case {
  '@name': string;
  '@file'?: string;
  failure?: { '@message': string; '@type': string; '#': string };
  error?: { '@message': string };
  skipped?: { '@message': string };
  'system-out'?: string;
}

/** The DOM node xmlbuilder2's parser gives, as much of it as these tests read (no DOM lib in this project). */
interface XmlNode {
  nodeType: number;
  tagName: string;
  textContent: string | null;
  childNodes: Iterable<XmlNode>;
  attributes: Iterable<{ name: string; value: string }>;
}

function elements(node: XmlNode): XmlNode[] {
  return Array.from(node.childNodes).filter((child) => child.nodeType === 1);
}

/** An element as plain data: attributes as `@name`, text as `#`, children by tag (the DOM decodes every entity). */
function plain(element: XmlNode): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const attribute of Array.from(element.attributes)) out[`@${attribute.name}`] = attribute.value;
  if (elements(element).length === 0) out['#'] = element.textContent ?? '';
  return out;
}

/** Parses the XML back with a real parser (malformed XML throws) into suites and their testcases. */
type Suite = Record<string, string> & { cases: Case[] };
const asSuite = (attributes: Record<string, unknown>, cases: Case[]): Suite => ({ ...attributes, cases }) as Suite;

function parse(xml: string): { root: Record<string, string>; suites: Suite[] } {
  const root = create(xml).root().node as unknown as XmlNode;
  expect(root.tagName).toBe('testsuites');
  const suites = elements(root).map((suite) =>
    asSuite(
      plain(suite),
      elements(suite)
        .filter((child) => child.tagName === 'testcase')
        .map((testcase) => {
          const out = plain(testcase);
          delete out['#'];
          for (const child of elements(testcase)) out[child.tagName] = child.tagName === 'system-out' ? child.textContent : plain(child);
          return out as unknown as Case;
        }),
    ),
  );
  return { root: plain(root) as Record<string, string>, suites };
}

describe('junitReporter', () => {
  it('writes one suite per target and per failed target, a coverage case and one case per finding', () => {
    const { root, suites } = parse(junitReporter(sampleRun(), { failOn: 'high' }));
    expect(suites.map((suite) => suite.cases.length)).toEqual([6, 1, 1]);
    expect(suites[0]!['@name']).toBe('npm:weather-mcp@1.2.0');
    expect(suites[0]!.cases.map((testcase) => testcase['@name'])).toEqual([
      'coverage',
      'command-injection at src/my tools/run.ts:42',
      'tool-poisoning-instructions at tool get_weather › description',
      'install-script',
      'not-in-the-catalog at src/config.ts:3',
      'http-transport-no-auth at src/server.ts:88',
    ]);
    // The dismissed finding (cafef00d…) is left out, as in SARIF.
    expect(JSON.stringify(suites)).not.toContain('ssrf');
    expect({ tests: root['@tests'], failures: root['@failures'], errors: root['@errors'], skipped: root['@skipped'] }).toEqual({
      tests: '8',
      failures: '2',
      errors: '2',
      skipped: '1',
    });
  });

  it('fails the findings at or above --fail-on and passes the others with their text', () => {
    const { suites } = parse(junitReporter(sampleRun(), { failOn: 'high' }));
    const [, injection, poisoning, install] = suites[0]!.cases;
    expect(injection!.failure).toMatchObject({ '@type': 'command-injection', '@message': expect.stringMatching(/^critical: Tool input `cmd`/) });
    expect(injection!.failure!['#']).toContain('exec(`git ${cmd}`, (error, stdout) => {');
    expect(injection!['@file']).toBe('src/my tools/run.ts');
    expect(poisoning!.failure).toBeDefined();
    expect(install!.failure).toBeUndefined();
    expect(install!['system-out']).toContain('The package runs a postinstall script');

    const lenient = parse(junitReporter(sampleRun(), { failOn: 'never' }));
    expect(lenient.root['@failures']).toBe('0');
    const strict = parse(junitReporter(sampleRun(), { failOn: 'info' }));
    expect(strict.root['@failures']).toBe('5');
  });

  it("judges by the repository's svc.config.json failOn unless --fail-on was explicit, as the exit code does", () => {
    const report: ScanReport = { ...sampleReport(), repoConfig: { file: 'svc.config.json', failOn: 'medium' } };
    expect(parse(junitReporter(sampleRun([report]), { failOn: 'high', failOnExplicit: false })).root['@failures']).toBe('3');
    expect(parse(junitReporter(sampleRun([report]), { failOn: 'high', failOnExplicit: true })).root['@failures']).toBe('2');
  });

  it('never shows an unscanned target as passing: not scanned and failed are errors, partial is skipped or an error', () => {
    const { suites } = parse(junitReporter(sampleRun()));
    expect(suites[0]!.cases[0]!.skipped!['@message']).toMatch(/^partial: 1 file not parsed/);
    expect(suites[1]!.cases[0]!.error!['@message']).toMatch(/^not scanned: remote endpoint/);
    expect(suites[2]!['@name']).toBe('pypi:missing-server==9.9');
    expect(suites[2]!.cases[0]!.error!['@message']).toBe('PyPI: no release 9.9 of missing-server<U+001B>[2J');

    const partialFails = parse(junitReporter(sampleRun([sampleReport(), sampleRemoteReport()]), { failOnPartial: true }));
    expect(partialFails.suites[0]!.cases[0]!.error!['@message']).toMatch(/^partial: /);
  });

  it('passes a clean, fully scanned target with one passing case', () => {
    const clean: ScanReport = { ...sampleReport([]), coverage: { status: 'scanned', reasons: [] }, problems: [] };
    const { root, suites } = parse(junitReporter({ ...sampleRun([clean]), errors: [] }));
    expect(suites[0]!.cases).toEqual([expect.objectContaining({ '@name': 'coverage' })]);
    expect(suites[0]!.cases[0]).not.toHaveProperty('failure');
    expect(suites[0]!.cases[0]).not.toHaveProperty('error');
    expect(root['@tests']).toBe('1');
  });

  it('keeps scanned text valid XML: markup escaped, control and invisible characters shown as code points', () => {
    const sneaky: Finding = {
      ...sampleFindings()[0]!,
      message: 'a </failure><injected attr="x"> & \u0000\u0008\u000B\u000C\u001B\uFFFE\uD800 ]]> end',
      evidence: HOSTILE_EVIDENCE,
      location: { file: 'src/"quoted"&<odd>.ts', line: 7, column: 1 },
    };
    const xml = junitReporter(sampleRun([sampleReport([sneaky])]), { failOn: 'low' });
    expect(xml).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uD800\u200B\u202E]/);
    const { suites } = parse(xml);
    const testcase = suites[0]!.cases[1]!;
    expect(testcase['@name']).toBe('command-injection at src/"quoted"&<odd>.ts:7');
    expect(testcase.failure!['@message']).toBe(
      'critical: a </failure><injected attr="x"> & <U+0000><U+0008><U+000B><U+000C><U+001B><U+FFFE><U+D800> ]]> end',
    );
    expect(testcase.failure!['#']).toContain('id_rsa<U+200B>');
  });
});
