/* eslint-disable no-control-regex -- these tests look for raw control characters on purpose */
import { describe, expect, it } from 'vitest';
import type { Finding, ScanReport } from '../scan/model.js';
import { command, githubReporter } from './github.js';
import { sampleFindings, sampleReport, sampleRun } from './sample-run.js';

describe('githubReporter', () => {
  const output = githubReporter(sampleRun());
  const lines = output.trimEnd().split('\n');

  it('writes one workflow command per line: findings, a line per target, an error per failed target', () => {
    for (const line of lines) expect(line).toMatch(/^::(error|warning|notice)( [^:]*)?::/);
    // 5 findings not dismissed + 2 target lines + 1 failure
    expect(lines).toHaveLength(8);
    expect(output).not.toContain('cafef00d');
    // The partly scanned target is a warning and the remote one (not scanned) an error: neither reads as passing.
    expect(lines).toContainEqual(expect.stringMatching(/^::warning title=svc%3A npm%3Aweather-mcp@1\.2\.0::score \d+\/100 grade F .*partial: 1 file not parsed/));
    expect(lines).toContainEqual(expect.stringMatching(/^::error title=svc%3A example [^:]*::score not graded, no findings\. not scanned: remote endpoint/));
    expect(lines.at(-1)).toBe('::error title=svc could not scan pypi%3Amissing-server==9.9::PyPI: no release 9.9 of missing-server<U+001B>[2J');
  });

  it('maps severities to error, warning and notice and points at file and line', () => {
    expect(lines[0]).toMatch(
      /^::error title=svc command-injection \(critical%2C command-injection\),file=src\/my tools\/run\.ts,line=42,col=5,endLine=44,endColumn=7::Tool input/,
    );
    expect(lines.find((line) => line.includes('install-script'))).toMatch(/^::warning title=[^:]*::/);
    expect(lines.find((line) => line.includes('http-transport-no-auth'))).toMatch(/^::notice /);
  });

  it('annotates a tool-description finding at the tool definition', () => {
    expect(lines[1]).toMatch(/^::error title=svc tool-poisoning-instructions [^:]*,file=src\/index\.ts,line=10,col=3::/);
    expect(lines[1]).toContain('%0Atool get_weather › description%0A');
  });

  it('keeps scanned text from breaking out of its command', () => {
    expect(output).not.toMatch(/[\r\u0007\u001b\u200B\u202E]/);
    expect(lines[1]).toContain('id_rsa<U+200B>');
    const sneaky: Finding = {
      ...sampleFindings()[3]!,
      message: '100% sure\n::error file=x::forged',
      location: { file: 'a,b:c.ts', line: 1, column: 1 },
    };
    const report: ScanReport = sampleReport([sneaky]);
    const [line] = githubReporter(sampleRun([report])).split('\n');
    expect(line).toBe(
      '::warning title=svc not-in-the-catalog (low%2C secrets),file=a%2Cb%3Ac.ts,line=1,col=1::100%25 sure%0A::error file=x::forged%0A%0Aconst TOKEN = "sk_live_****";',
    );
  });
});

describe('command', () => {
  it('escapes data and properties as the Actions toolkit does', () => {
    expect(command('warning', { file: 'a:b,c', line: 3, title: undefined }, 'x%y\r\nz')).toBe('::warning file=a%3Ab%2Cc,line=3::x%25y%0D%0Az');
    expect(command('notice', {}, 'plain')).toBe('::notice::plain');
  });
});
