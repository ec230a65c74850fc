import fc from 'fast-check';
import { describe, expect, it, test } from 'vitest';
import {
  canonicalHash,
  createLockfile,
  formatLockfile,
  LockfileError,
  parseLockfile,
  pinnedDefinition,
  pinReport,
  serverKey,
  type Lockfile,
} from './lockfile.js';
import type { ScanReport, ToolDefinition } from './model.js';

const RUNS = { numRuns: 300, seed: 13 };
const at = { file: 'src/index.ts', line: 1, column: 1 };

/** The same JSON value with its object keys in a shuffled order. */
function shuffled(value: unknown, random: () => number): unknown {
  if (Array.isArray(value)) return value.map((item) => shuffled(item, random));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).sort(() => random() - 0.5);
  return Object.fromEntries(entries.map(([key, item]) => [key, shuffled(item, random)]));
}

describe('canonicalHash', () => {
  it('does not depend on key order or whitespace', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 8 }), fc.integer(), (value, indent, seed) => {
        let state = seed;
        const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 + 1) % 1;
        const reread = JSON.parse(JSON.stringify(shuffled(value, random), null, indent)) as unknown;
        expect(canonicalHash(reread)).toBe(canonicalHash(value));
      }),
      RUNS,
    );
  });

  it('changes with any model-visible change', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        fc.pre(a !== b);
        expect(canonicalHash({ description: a })).not.toBe(canonicalHash({ description: b }));
      }),
      RUNS,
    );
  });

  test.each([
    ['key order', { b: 1, a: { y: [1, 2], x: 'é' } }, { a: { x: 'é', y: [1, 2] }, b: 1 }],
    ['number spelling', { n: 1.0 }, { n: 1 }],
  ])('%s gives the same hash', (_name, left, right) => {
    expect(canonicalHash(left)).toBe(canonicalHash(right));
  });
});

describe('pinnedDefinition', () => {
  const tool = (parameters: ToolDefinition['parameters']): ToolDefinition => ({
    kind: 'tool',
    name: 'read',
    description: 'Reads a file.',
    parameters,
    annotations: { readOnlyHint: true },
    location: at,
    extractor: 'mcp-sdk',
    capabilities: [],
  });

  it('keeps what the model reads and nothing else (no location, extractor or capabilities)', () => {
    expect(pinnedDefinition(tool([{ name: 'path', type: 'string', required: true }]))).toEqual({
      kind: 'tool',
      name: 'read',
      description: 'Reads a file.',
      inputSchema: { properties: { path: { type: 'string' } }, required: ['path'] },
      annotations: { readOnlyHint: true },
    });
  });

  it('does not depend on parameter or enum order', () => {
    const a = tool([
      { name: 'path', type: 'string', required: true },
      { name: 'mode', type: 'string', enum: ['r', 'w'], required: true },
    ]);
    const b = tool([
      { name: 'mode', type: 'string', enum: ['w', 'r'], required: true },
      { name: 'path', type: 'string', required: true },
    ]);
    expect(canonicalHash(pinnedDefinition(a))).toBe(canonicalHash(pinnedDefinition(b)));
  });
});

test.each([
  [{ kind: 'npm', input: 'npm:@scope/server@1.2.3', name: '@scope/server' }, 'npm:@scope/server'],
  [{ kind: 'pypi', input: 'pypi:mcp-server-git==0.6', name: 'mcp-server-git' }, 'pypi:mcp-server-git'],
  [{ kind: 'git', input: 'github:owner/repo#v1', name: 'repo' }, 'github:owner/repo'],
  [{ kind: 'directory', input: './servers//notes/', name: 'notes' }, 'servers/notes'],
  [{ kind: 'npm', input: 'npm:server@2', name: 'server', origin: { serverName: 'files' } }, 'files (npm:server)'],
] as const)('serverKey(%j) is %s: the version is not part of the identity', (target, key) => {
  expect(serverKey(target)).toBe(key);
});

describe('the lock file', () => {
  const report = {
    target: { kind: 'directory', input: 'srv', name: 'srv', version: '1.0.0', contentHash: 'abc' },
    tools: [
      { kind: 'tool', name: 'b', description: 'B', parameters: [], location: at, extractor: 'mcp-sdk' },
      { kind: 'tool', name: 'a', description: 'A', parameters: [], location: at, extractor: 'mcp-sdk' },
      { kind: 'tool', name: 'a', description: 'a second definition of a', parameters: [], location: at, extractor: 'mcp-sdk' },
      { kind: 'instructions', name: 'instructions', description: 'Use b after a.', parameters: [], location: at, extractor: 'mcp-sdk' },
    ],
  } satisfies Pick<ScanReport, 'target' | 'tools'>;
  const pinnedAt = new Date('2026-01-02T03:04:05.000Z');

  it('pins each item once (the first definition of a name), sorted, with its hash and text', () => {
    const entry = pinReport(report, pinnedAt);
    expect(Object.keys(entry.items)).toEqual(['instructions:instructions', 'tool:a', 'tool:b']);
    expect(entry.items['tool:a']).toEqual({ hash: canonicalHash({ kind: 'tool', name: 'a', description: 'A' }), definition: { kind: 'tool', name: 'a', description: 'A' } });
    expect(entry.pinnedAt).toBe('2026-01-02T03:04:05.000Z');
  });

  it('reads back what it writes, and keeps the entries of servers not pinned again', () => {
    const first = createLockfile(new Map([['old', pinReport(report, pinnedAt)]]));
    const second = createLockfile(new Map([['srv', pinReport(report, pinnedAt)]]), first);
    const text = formatLockfile(second);
    expect(parseLockfile(text, 'mcp.lock')).toEqual(second);
    expect(Object.keys(second.servers)).toEqual(['old', 'srv']);
  });

  const valid = createLockfile(new Map([['srv', pinReport(report, pinnedAt)]]));
  test.each([
    ['broken JSON', '{', /^mcp\.lock: not valid JSON/],
    ['no version', '[]', /^mcp\.lock: not an mcp\.lock: it has no lockfileVersion/],
    ['an unknown version', JSON.stringify({ ...valid, lockfileVersion: 2 }), /^mcp\.lock: lockfileVersion 2 is not one this svc reads \(it reads 1\)/],
    ['a bad hash', JSON.stringify({ ...valid, servers: { srv: { ...valid.servers.srv, items: { 'tool:a': { hash: 'md5:x' } } } } }), /^mcp\.lock: not a valid mcp\.lock: servers\.srv\.items\.tool:a\.hash/],
    ['an unknown field', JSON.stringify({ ...valid, extra: 1 } as Lockfile), /^mcp\.lock: not a valid mcp\.lock: .*extra/],
  ])('refuses %s with the file and the problem', (_name, text, message) => {
    expect(() => parseLockfile(text, 'mcp.lock')).toThrow(LockfileError);
    expect(() => parseLockfile(text, 'mcp.lock')).toThrow(message);
  });
});
