/* eslint-disable no-control-regex -- these tests look for raw control characters on purpose */
import { describe, expect, it } from 'vitest';
import type { Finding, ScanReport } from '../scan/model.js';
import { HOSTILE_EVIDENCE, sampleFindings, sampleReport, sampleRun } from './sample-run.js';
import { textReporter } from './text.js';

// Anything a terminal would act on: C0 controls other than LF and TAB, DEL, C1 controls, bidi and zero-width format
// characters and Unicode tags.
const RAW_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2066-\u2069\u{E0000}-\u{E007F}]/u;

describe('textReporter', () => {
  const output = textReporter(sampleRun());

  it('emits no raw control or hidden characters from scanned text', () => {
    expect(HOSTILE_EVIDENCE).toMatch(RAW_CONTROL); // the sample really is hostile
    expect(output).not.toMatch(RAW_CONTROL);
    expect(output).toContain('id_rsa<U+200B>');
    expect(output).toContain('<U+202E>gnp.evil<U+202C>');
    expect(output).toContain('<U+001B>[31mRED');
    expect(output).toContain('<U+000D>overwritten<U+0007>');
    expect(output).toContain('<U+E0049><U+E0047><U+E004E>');
    expect(output).toContain('missing-server<U+001B>[2J');
  });

  it('colours only when asked, and only with its own SGR sequences', () => {
    expect(output).not.toContain('\u001b');
    const coloured = textReporter(sampleRun(), { color: true });
    expect(coloured).toMatch(/\u001b\[\d+m/);
    expect(coloured.replace(/\u001b\[\d+m/g, '')).toBe(output);
  });

  it('lists each tool with what its code can do, one compact line per tool', () => {
    const report: ScanReport = {
      ...sampleReport(),
      tools: [
        {
          kind: 'tool',
          name: 'get_forecast',
          parameters: [],
          location: { file: 'src/index.ts', line: 3, column: 1 },
          extractor: 'mcp-sdk',
          capabilities: [
            { kind: 'network', detail: 'fetch api.weather.gov', target: 'api.weather.gov', location: { file: 'src/client.ts', line: 9, column: 3 } },
            { kind: 'persistence', detail: 'fs.appendFileSync ~/.bashrc', target: '~/.bashrc', location: { file: 'src/setup.ts', line: 13, column: 5 } },
            { kind: 'env', detail: 'process.env.HOME', location: { file: 'src/setup.ts', line: 4, column: 5 } },
          ],
        },
        { kind: 'tool', name: 'add', parameters: [], location: { file: 'src/index.ts', line: 9, column: 1 }, extractor: 'mcp-sdk', capabilities: [] },
      ],
    };
    const text = textReporter({ ...sampleRun(), reports: [report] });
    expect(text).toContain('tool capabilities (1 of 2 tools):');
    expect(text).toContain('    get_forecast: network api.weather.gov · persistence ~/.bashrc · env');
    expect(text).not.toContain('    add:');
  });

  it('groups by target, then by severity from critical to info', () => {
    const positions = ['weather-mcp', 'CRITICAL (1)', 'HIGH (2)', 'MEDIUM (1)', 'LOW (1)', 'INFO (1)', 'example (https://mcp.example.com/mcp)'].map(
      (marker) => output.indexOf(marker),
    );
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('shows each finding with rule, category, location, evidence, flow and judges', () => {
    expect(output).toContain('● command-injection  Untrusted input built into a command line or handed to a shell');
    expect(output).toContain('[command-injection] · CWE-78 · CWE-77 · OWASP MCP05 · confidence 0.95 · details: svc rules command-injection');
    expect(output).toMatch(/fix: Run the program with an argument array and no shell/);
    expect(output).toContain('at src/my tools/run.ts:42:5');
    expect(output).toContain('at tool get_weather › description');
    expect(output).toContain('│   resolve(stdout);');
    expect(output).toMatch(/1\. \[tool-input\] src\/my tools\/run\.ts:30 {2}parameter cmd of tool run_task/);
    expect(output).toContain('judges: confirm 2, uncertain 1 → confirm');
    expect(output).toContain('- sanitizer: dismiss, host checked against an allowlist');
    expect(output).toMatch(/○ ssrf {2}.*dismissed by judges/);
    expect(output).toContain('[ssrf] · CWE-918');
  });

  it('lists what the judge panel dismissed apart, with every vote, after the counted findings', () => {
    const [kept, ...rest] = sampleFindings();
    const dismissed = rest.filter((finding) => finding.consensus === 'dismiss');
    expect(dismissed).not.toEqual([]);
    const report = { ...sampleReport([kept!]), dismissed };
    const text = textReporter(sampleRun([report]));
    const section = text.indexOf('dismissed by the judge panel, not counted (1)');
    expect(section).toBeGreaterThan(text.indexOf(kept!.ruleId));
    expect(text.slice(section)).toContain('- sanitizer: dismiss, host checked against an allowlist');
    expect(textReporter(sampleRun([sampleReport([kept!])]))).not.toContain('dismissed by the judge panel');
  });

  it('summarises score, grade, counts, problems, remote targets and errors', () => {
    const report = sampleReport();
    expect(output).toContain(`score ${report.score}/100 grade ${report.grade}`);
    expect(output).toContain('critical 1 · high 1 · medium 1 · low 1 · info 1');
    expect(output).toContain('dist/bundle.min.js: Unexpected token');
    expect(output).toMatch(/partial:\n {4}! 1 file not parsed \(dist\/bundle\.min\.js: Unexpected token/);
    expect(output).toMatch(/score not graded .*\n {2}not scanned:\n {4}! remote endpoint/);
    expect(output).toMatch(/Errors \(1\)\n {2}✖ pypi:missing-server==9\.9: PyPI: no release/);
    expect(output.trimEnd().split('\n').at(-1)).toBe('svc 0.1.0: 2 targets scanned, 6 findings, 1 target failed');
  });

  it('shows the code around a finding with a gutter, the finding\'s line marked, instead of its evidence', () => {
    const finding: Finding = {
      ...sampleFindings()[0]!,
      location: { file: 'src/run.ts', line: 9, column: 5 },
      context: { startLine: 7, lines: ['function run(cmd) {', '  // build it', '  exec(`sh -c ${cmd}`);', '}', ''] },
    };
    const text = textReporter(sampleRun([sampleReport([finding])]));
    expect(text).toContain(
      ['         7 │ function run(cmd) {', '         8 │   // build it', '      ▶  9 │   exec(`sh -c ${cmd}`);', '        10 │ }'].join('\n'),
    );
    expect(text).not.toContain(`│ ${finding.evidence.split('\n')[0]}`);
  });

  it('lists the facets folded into a finding, and a summary table only for several targets', () => {
    const finding: Finding = {
      ...sampleFindings()[0]!,
      facets: [{ id: 'f1', ruleId: 'cors-wildcard', severity: 'medium', message: 'CORS allows every origin', location: { file: 'src/http.ts', line: 4, column: 1 } }],
    };
    const one = textReporter({ ...sampleRun([sampleReport([finding])]), errors: [] });
    expect(one).toContain('same root cause:\n        • cors-wildcard (medium) at src/http.ts:4: CORS allows every origin');
    expect(one).not.toContain('Summary');
    expect(output).toMatch(/Summary\ntarget +status +tools +critical +high +medium +low +grade\nnpm:weather-mcp@1\.2\.0 +partial +3 +1 +1 +1 +1 +F\n/);
    expect(output).toMatch(/\npypi:missing-server==9\.9 +failed( +-){6}$/m);
  });

  it('truncates long evidence', () => {
    const long: Finding = { ...sampleFindings()[0]!, evidence: Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n') };
    const text = textReporter(sampleRun([sampleReport([long])]));
    expect(text).toContain('│ line 7');
    expect(text).not.toContain('│ line 8');
    expect(text).toContain('… (32 more lines)');
  });

  it('says when a target is clean, and only then', () => {
    const clean: ScanReport = { ...sampleReport([]), problems: [], coverage: { status: 'scanned', reasons: [] } };
    expect(textReporter(sampleRun([clean]))).toContain('✔ no findings');
    // The same report with a file that did not parse is not clean: it says what was left out instead.
    const partial = textReporter(sampleRun([sampleReport([])]));
    expect(partial).not.toContain('✔ no findings');
    expect(partial).toContain('no findings in the part that was scanned');
  });

  it('counts what was not analysed as server code, per reason, with the folders', () => {
    const report = {
      ...sampleReport(),
      scopedOut: [
        { path: 'client/dist/assets/index-1.js', reason: 'browser-build' as const, detail: 'web client beside client/dist/index.html' },
        { path: 'client/dist/assets/vendor-2.js', reason: 'browser-build' as const, detail: 'web client beside client/dist/index.html' },
        { path: 'dist/cjs/index.js', reason: 'dual-build-twin' as const, detail: 'CommonJS twin of dist/esm/index.js, which is analysed' },
      ],
    };
    const text = textReporter({ ...sampleRun(), reports: [report] });
    expect(text).toContain('not analysed as server code (3 files, read by the text rules only):');
    expect(text).toContain('browser build output (web client beside an index.html): 2 in client/dist/assets');
    expect(text).toContain('CommonJS twins of an analysed ESM build: 1 in dist/cjs');
  });
});
