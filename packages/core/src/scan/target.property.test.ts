// Property-based tests (fast-check) for the parsers of scan inputs: whatever a user or a daemon caller types, the
// parsers answer with a target or their documented error, never another exception; and accepted archive entry names
// always land inside the destination. Fixed seeds keep failures reproducible and the suite fast.

import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchiveError, safeEntryPath } from './archive.js';
import { parseTarget, TargetError } from './target.js';
import { gitTarget, normalisePypiName, npmTarget, pypiTarget } from './sources/specs.js';

const RUNS = { numRuns: 400, seed: 12 };

// Characters that matter to the parsers: separators, URL syntax, percent escapes, NUL and other controls, non-ASCII.
const TRICKY = [...'aZ09._-~/\\:@#%?&=[]<>!*+^ \t\n\0\u202e\u00e9', '%E0', '%zz', '..', '//', '%00', 'ffff'];
const tail = fc.oneof(
  fc.string({ unit: fc.constantFrom(...TRICKY), maxLength: 24 }),
  fc.string({ unit: 'binary', maxLength: 24 }),
  // Longer than any file name: the local-path lookup meets ENAMETOOLONG.
  fc.constant('x'.repeat(300)),
);
const PREFIXES = ['', 'npm:', 'pypi:', 'git+https://', 'git+http://', 'git+ssh://', 'git+file://', 'git://', 'ssh://', 'file:', 'file://', 'github:', 'gitlab:', 'https://', 'http://', 'ftp://', '@', './', '/', '~/'];
const scanInput = fc.tuple(fc.constantFrom(...PREFIXES), tail).map(([prefix, rest]) => prefix + rest);

/** Runs fn and reports what escaped it: undefined, or the thrown value. */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error;
  }
}

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(path.join(os.tmpdir(), 'svc-target-prop-'));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

describe('scan input parsers never throw anything but TargetError', () => {
  it('parseTarget', () => {
    fc.assert(
      fc.property(scanInput, (input) => {
        const error = thrownBy(() => parseTarget(input, cwd));
        expect(error === undefined || error instanceof TargetError, String(error)).toBe(true);
      }),
      RUNS,
    );
  });

  it('npmTarget, pypiTarget and gitTarget', () => {
    fc.assert(
      fc.property(scanInput, (input) => {
        for (const parse of [npmTarget, pypiTarget, gitTarget]) {
          const error = thrownBy(() => parse(input, input));
          expect(error === undefined || error instanceof TargetError, `${parse.name}: ${String(error)}`).toBe(true);
        }
      }),
      RUNS,
    );
  });

  // Found by the properties above: a malformed percent escape in a ref threw URIError, a NUL byte a TypeError and a
  // very long name ENAMETOOLONG from the local-path lookup, each of which the CLI showed as a crash.
  it.each([
    ['a bad escape in a file: ref', 'git+file:///repo#%E0'],
    ['a bad escape in an ssh: ref', 'ssh://host/repo#%'],
    ['a bad escape in a relative file: ref', 'file:repo#%zz'],
    ['a NUL byte', 'a\0b'],
    ['a path with a 300-character name', `./${'x'.repeat(300)}`],
  ])('%s is a TargetError', (_label, input) => {
    expect(thrownBy(() => parseTarget(input, cwd))).toBeInstanceOf(TargetError);
  });
});

describe('package specs round-trip', () => {
  const npmName = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/);
  const version = fc.tuple(fc.nat(99), fc.nat(99), fc.nat(99)).map((parts) => parts.join('.'));

  it('npm: name@version gives back the name and the version', () => {
    fc.assert(
      fc.property(fc.option(npmName, { nil: undefined }), npmName, version, (scope, name, spec) => {
        const full = scope === undefined ? name : `@${scope}/${name}`;
        expect(npmTarget(`${full}@${spec}`, 'x')).toMatchObject({ kind: 'npm', name: full, spec });
      }),
      RUNS,
    );
  });

  it('pypi: name==version gives back the PEP 503 name and the version, and normalising is idempotent', () => {
    const pypiName = fc.stringMatching(/^[A-Za-z0-9]([A-Za-z0-9._-]{0,20}[A-Za-z0-9])?$/);
    fc.assert(
      fc.property(pypiName, version, (name, spec) => {
        const target = pypiTarget(`${name}==${spec}`, 'x');
        expect(target).toEqual({ kind: 'pypi', input: 'x', name: normalisePypiName(name), version: spec });
        expect(normalisePypiName(target.name)).toBe(target.name);
      }),
      RUNS,
    );
  });
});

describe('archive entry names', () => {
  const segment = fc.oneof(fc.constantFrom('..', '.', '', 'a', 'b', 'C:', '\\..', '..\\', '...'), fc.string({ unit: fc.constantFrom(...TRICKY), maxLength: 6 }));
  const entryName = fc.oneof(
    fc.array(segment, { maxLength: 8 }).map((parts) => parts.join('/')),
    fc.array(segment, { maxLength: 8 }).map((parts) => parts.join('\\')),
    fc.string({ unit: 'binary', maxLength: 30 }),
  );
  const dest = path.resolve('/srv/svc-job/dest');

  it('an accepted name always resolves strictly inside the destination; a refused one is an ArchiveError', () => {
    fc.assert(
      fc.property(entryName, fc.nat(3), (name, strip) => {
        let relative: string | null;
        try {
          relative = safeEntryPath(name, strip);
        } catch (error) {
          expect(error).toBeInstanceOf(ArchiveError);
          return;
        }
        if (relative === null) return;
        const target = path.resolve(dest, relative);
        expect(target.startsWith(dest + path.sep), `${JSON.stringify(name)} → ${target}`).toBe(true);
        expect(relative.split('/')).not.toContain('..');
      }),
      { numRuns: 2000, seed: 12 },
    );
  });
});
