import { describe, expect, it } from 'vitest';
import { checkoutPath, clip, excerpt, findingLocation, jsonWithVisibleEscapes, targetTitle, visible, visibleLine } from './common.js';
import { sampleReport } from './sample-run.js';

describe('visible', () => {
  it.each([
    ['zero-width space', 'a\u200Bb', 'a<U+200B>b'],
    ['bidi override', 'x\u202Etxt.exe', 'x<U+202E>txt.exe'],
    ['ANSI escape', '\u001b[31mred', '<U+001B>[31mred'],
    ['C1 CSI', '\u009b2J', '<U+009B>2J'],
    ['carriage return', 'safe\rEVIL', 'safe<U+000D>EVIL'],
    ['Unicode tag characters', 'hi\u{E0041}\u{E0042}', 'hi<U+E0041><U+E0042>'],
    ['no-break space', 'a\u00A0b', 'a<U+00A0>b'],
    ['Hangul filler', 'a\u3164b', 'a<U+3164>b'],
    ['variation selector outside emoji', 'a\uFE0Fb', 'a<U+FE0F>b'],
    ['lone surrogate', 'a\uD800b', 'a<U+D800>b'],
    ['soft hyphen', 'pass\u00ADword', 'pass<U+00AD>word'],
  ])('shows %s', (_name, input, expected) => {
    expect(visible(input)).toBe(expected);
  });

  it('keeps line feeds, tabs, ordinary text and emoji sequences', () => {
    const text = 'line 1\n\tline 2 — café ⚠️ 👨‍👩‍👧 日本語';
    expect(visible(text)).toBe(text);
  });

  it('puts multi-line text on one line for titles and cells', () => {
    expect(visibleLine('a\r\nb\nc\td')).toBe('a ⏎ b ⏎ c d');
  });
});

describe('jsonWithVisibleEscapes', () => {
  it('escapes hidden characters inside strings without changing the data', () => {
    const data = { text: 'a\u200Bb\u202E\u{E0041}\u2028 ⚠️', nested: ['\u00A0'] };
    const json = jsonWithVisibleEscapes(JSON.stringify(data, null, 2));
    expect(JSON.parse(json)).toEqual(data);
    expect(json).toContain('\\u200b');
    expect(json).toContain('\\udb40\\udc41');
    expect(json.replace(/\n/g, '')).not.toMatch(/[\u200B\u202E\u2028\u00A0\u{E0041}]/u);
  });
});

describe('clip', () => {
  it('keeps text within the limit and cuts longer text to the limit, the last character an ellipsis', () => {
    expect(clip('abcdef', 6)).toBe('abcdef');
    expect(clip('abcdefg', 6)).toBe('abcde…');
  });

  it('counts code points, so an emoji is one character and a surrogate pair is never split', () => {
    const title = `${'a'.repeat(253)}😀😀`;
    // 255 code points, 257 UTF-16 units: within the limit as JSON Schema counts it.
    expect(clip(title, 255)).toBe(title);
    const cut = clip(`${'a'.repeat(253)}😀😀😀`, 255);
    expect([...cut]).toHaveLength(255);
    expect(cut).toBe(`${'a'.repeat(253)}😀…`);
    // No lone surrogate left behind by the cut (with the u flag, \p{Cs} matches only unpaired ones).
    expect(cut).not.toMatch(/\p{Cs}/u);
  });
});

describe('excerpt', () => {
  it('cuts long evidence and says how much was cut', () => {
    const lines = excerpt(Array.from({ length: 30 }, (_, i) => `line ${i} ${'x'.repeat(300)}`).join('\n'), 8, 100);
    expect(lines).toHaveLength(9);
    expect(lines[0]).toMatch(/… \(\+\d+ chars\)$/);
    expect(lines[8]).toBe('… (22 more lines)');
  });
});

describe('findingLocation', () => {
  it('uses the tool definition for findings about what the model reads', () => {
    const report = sampleReport();
    const toolFinding = report.findings.find((finding) => finding.tool)!;
    expect(findingLocation(report, toolFinding)).toEqual({ file: 'src/index.ts', line: 10, column: 3 });
    const nowhere = report.findings.find((finding) => !finding.tool && !finding.location)!;
    expect(findingLocation(report, nowhere)).toBeUndefined();
  });
});

describe('checkoutPath', () => {
  const directory = (input: string) => ({ ...sampleReport(), target: { ...sampleReport().target, kind: 'directory' as const, input } });
  it.each([
    ['servers/weather', 'servers/weather/src/index.ts'],
    ['./servers/weather/', 'servers/weather/src/index.ts'],
    ['.', 'src/index.ts'],
    ['/abs/path', 'src/index.ts'],
    ['../elsewhere', 'src/index.ts'],
  ])('directory input %s → %s', (input, expected) => {
    expect(checkoutPath(directory(input), 'src/index.ts')).toBe(expected);
  });

  it('leaves package paths alone', () => {
    expect(checkoutPath(sampleReport(), 'src/index.ts')).toBe('src/index.ts');
  });
});

describe('targetTitle', () => {
  const withTarget = (target: Partial<ReturnType<typeof sampleReport>['target']>) => {
    const report = sampleReport([]);
    return { ...report, target: { ...report.target, ...target } };
  };

  it('names the version the registry resolved for a package spec without one', () => {
    expect(targetTitle(withTarget({ kind: 'npm', input: 'npm:weather-mcp', name: 'weather-mcp', version: '1.4.2' }))).toBe('npm:weather-mcp — weather-mcp@1.4.2');
    expect(targetTitle(withTarget({ kind: 'pypi', input: 'pypi:notes-mcp', name: 'notes-mcp', version: '0.3.0' }))).toBe('pypi:notes-mcp — notes-mcp@0.3.0');
  });

  it('does not repeat a version the input already pins, and names the package of a folder', () => {
    expect(targetTitle(withTarget({ kind: 'npm', input: 'npm:weather-mcp@1.4.2', name: 'weather-mcp', version: '1.4.2' }))).toBe('npm:weather-mcp@1.4.2');
    expect(targetTitle(withTarget({ kind: 'directory', input: './servers/a', name: 'notes', version: '1.0.0' }))).toBe('./servers/a — notes@1.0.0');
  });
});
