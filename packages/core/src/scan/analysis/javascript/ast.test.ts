import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from 'oxc-parser';
import { describe, expect, it } from 'vitest';
import { RAW_TRANSFER, asciiSet, isJsPath, longRunStarts, parseFile } from './ast.js';

const fixturesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../../fixtures');

function jsFixtures(): string[] {
  return readdirSync(fixturesDir, { recursive: true, encoding: 'utf8' })
    .filter((relPath) => isJsPath(relPath))
    .sort();
}

describe('longRunStarts', () => {
  const ENCODED = asciiSet('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-');

  it('finds the runs the regex [set]{n,} finds, in one pass', () => {
    const pieces = ['aB3', '+/=', '_-', ' ', '.', '\n', 'é', 'x'.repeat(7), '"', 'Q'.repeat(3)];
    let state = 3;
    for (let sample = 0; sample < 2000; sample++) {
      let text = '';
      for (let i = 0; i < 30; i++) {
        state = (state * 1103515245 + 12345) % 2 ** 31;
        text += pieces[state % pieces.length];
      }
      const expected = [...text.matchAll(/[A-Za-z0-9+/=_-]{12,}/g)].map((match) => match.index);
      expect(longRunStarts(text, ENCODED, 12), JSON.stringify(text)).toEqual(expected);
    }
  });

  it('counts a run that ends the text', () => {
    expect(longRunStarts(`x = "${'A'.repeat(300)}`, ENCODED, 200)).toEqual([5]);
    expect(longRunStarts('A'.repeat(199), ENCODED, 200)).toEqual([]);
  });
});

describe('parseFile', () => {
  it('skips declaration files of every flavour', () => {
    expect(['a.d.ts', 'a.d.mts', 'a.d.cts', 'dist/index.d.ts'].filter(isJsPath)).toEqual([]);
    expect(['a.ts', 'a.mts', 'a.cts', 'dist/index.js'].every(isJsPath)).toBe(true);
  });

  // Raw transfer exists on Node ≥ 22 only; CI runs this suite on Node 22 and 24 as well, where it compares.
  it.runIf(RAW_TRANSFER)('builds the same AST through raw transfer as through the JSON handoff, on every JS/TS fixture', () => {
    const files = jsFixtures();
    expect(files.length).toBeGreaterThan(50);
    for (const relPath of files) {
      const text = readFileSync(path.join(fixturesDir, relPath), 'utf8');
      const outcome = parseFile({ path: relPath, absPath: path.join(fixturesDir, relPath), role: 'source', size: text.length, text });
      if (!outcome.ok) continue;
      const lang = relPath.endsWith('.tsx') ? 'tsx' : /\.[cm]?ts$/.test(relPath) ? 'ts' : relPath.endsWith('.jsx') ? 'jsx' : 'js';
      const viaJson = parseSync(relPath, text, { sourceType: outcome.parsed.program.sourceType, lang, preserveParens: false });
      expect(JSON.parse(JSON.stringify(outcome.parsed.program)), relPath).toEqual(JSON.parse(JSON.stringify(viaJson.program)));
    }
  });
});
