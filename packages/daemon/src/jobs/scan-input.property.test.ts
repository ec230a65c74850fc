// Property-based tests (fast-check) for what a remote caller's scan input may make the daemon do: connect only to
// public addresses over allowed transports (git destinations, whatever spelling of an address the URL uses), and
// read only inside SVC_SCAN_ROOTS (the input policy). Private ranges come from a reference table on numbers here,
// not from ipaddr.js, so the check is compared with something independent.

import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkGitDestination, DEFAULT_GIT_POLICY, gitUrlProblem, type GitPolicy } from './git-destination.js';
import { checkScanInput } from './input-policy.js';

const RUNS = { numRuns: 400, seed: 12 };

// Loopback, private, link-local (cloud metadata), shared (CGNAT), "this network", multicast and reserved: never a
// clone destination by default (issue 12, hole 1).
const NOT_PUBLIC_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.168.0.0', 16], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
const toNumber = (ip: string): number => ip.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
const fromNumber = (value: number): string => [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
const isNotPublic = (value: number): boolean =>
  NOT_PUBLIC_V4.some(([base, bits]) => Math.floor(value / 2 ** (32 - bits)) === Math.floor(toNumber(base) / 2 ** (32 - bits)));

/** An address inside one of the ranges above. */
const privateV4 = fc.tuple(fc.constantFrom(...NOT_PUBLIC_V4), fc.nat(0xffffffff)).map(([[base, bits], noise]) => toNumber(base) + (noise % 2 ** (32 - bits)));

/** The spellings a URL parser reads as that address: dotted, one decimal number, hex, octal octets, IPv4-mapped IPv6. */
const spellings = (value: number): string[] => [
  fromNumber(value),
  String(value),
  `0x${value.toString(16)}`,
  fromNumber(value).split('.').map((octet) => `0${Number(octet).toString(8)}`).join('.'),
  `[::ffff:${fromNumber(value)}]`,
];

const withEverything: GitPolicy = { ...DEFAULT_GIT_POLICY, protocols: ['https', 'http', 'ssh', 'git'] };

describe('git destinations', () => {
  it('a non-public IPv4 address is refused in every spelling, port, transport and path', () => {
    const scheme = fc.constantFrom('https://', 'git+https://', 'http://', 'git+http://', 'git://', 'ssh://git@');
    const suffix = fc.constantFrom('/x.git', ':8080/x.git', '/api/delete?user=admin#', '');
    fc.assert(
      fc.property(privateV4, scheme, suffix, (value, prefix, rest) => {
        for (const host of spellings(value)) {
          expect(gitUrlProblem(`${prefix}${host}${rest}`, withEverything), `${prefix}${host}${rest}`).toMatch(/public address/);
        }
      }),
      RUNS,
    );
  });

  // Found by the property above: `ssh://` and `git://` URLs are not special to the URL parser, so `2130706433`,
  // `0x7f000001` or `0177.0.0.1` stayed host names there, and with ssh or git allowed they reached 127.0.0.1.
  it.each(['ssh://git@2130706433/x.git', 'git://0x7f000001/x.git', 'git@0177.0.0.1:x.git', 'ssh://git@0/x.git', 'git://169.254.43518/latest'])(
    '%s is refused as the address it resolves to',
    (url) => {
      expect(gitUrlProblem(url, withEverything)).toMatch(/public address/);
    },
  );

  it('a host name is refused when any address it resolves to is not public, and a clone is pinned to a checked address', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(0xffffffff), { minLength: 1, maxLength: 4 }), async (values) => {
        const addresses = values.map(fromNumber);
        const result = await checkGitDestination('https://repo.example.test/x.git', DEFAULT_GIT_POLICY, async () => addresses.map((address) => ({ address })));
        if (values.some(isNotPublic)) expect(result.ok).toBe(false);
        if (result.ok) expect(addresses).toContain(result.git.pin?.address);
      }),
      RUNS,
    );
  });

  it('never throws, whatever the URL', async () => {
    const url = fc.oneof(
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.tuple(fc.constantFrom('https://', 'git+ssh://', 'ssh://', 'git://', 'file://', 'git+https://u:p@', ''), fc.string({ unit: 'binary', maxLength: 30 })).map(([a, b]) => a + b),
    );
    await fc.assert(
      fc.asyncProperty(url, async (candidate) => {
        expect(() => gitUrlProblem(candidate, withEverything)).not.toThrow();
        const result = await checkGitDestination(candidate, withEverything, async () => [{ address: '93.184.216.34' }]);
        expect(typeof result.ok).toBe('boolean');
      }),
      RUNS,
    );
  });
});

describe('scan inputs and SVC_SCAN_ROOTS', () => {
  let base: string;
  let root: string;
  beforeAll(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'svcd-input-prop-')));
    root = path.join(base, 'root');
    await mkdir(path.join(root, 'proj'), { recursive: true });
    await mkdir(path.join(base, 'outside'), { recursive: true });
    await writeFile(path.join(base, 'outside', 'package.json'), '{"name":"outside"}');
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('never throws, and an accepted local target is always inside the roots', () => {
    const segment = fc.constantFrom('..', '.', 'proj', 'outside', 'root', '', 'x', '%2e%2e', 'package.json');
    const input = fc.oneof(
      fc.array(segment, { maxLength: 6 }).map((parts) => `${root}/${parts.join('/')}`),
      fc.tuple(fc.constantFrom('file://', 'git+file://', 'file:', 'file://localhost'), fc.array(segment, { maxLength: 6 })).map(([scheme, parts]) => `${scheme}${root}/${parts.join('/')}`),
      fc.tuple(fc.constantFrom('', 'npm:', 'pypi:', 'github:', 'git+https://', '~/', './', '../'), fc.string({ unit: 'binary', maxLength: 30 })).map(([a, b]) => a + b),
    );
    fc.assert(
      fc.property(input, (candidate) => {
        const result = checkScanInput(candidate, [root]);
        if (!result.ok) return;
        const target = result.target;
        const local = target.kind === 'directory' || target.kind === 'config' ? target.path : target.kind === 'git' && target.url.startsWith('file:') ? new URL(target.url).pathname : undefined;
        if (local !== undefined) expect(local === root || local.startsWith(root + path.sep), `${candidate} → ${local}`).toBe(true);
      }),
      RUNS,
    );
  });
});
