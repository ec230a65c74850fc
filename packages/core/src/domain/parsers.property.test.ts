// Property-based tests (fast-check) for the domain parsers that read what a caller sends: API keys in a bearer
// header, IP allowlist entries and the source address (socket or X-Forwarded-For). The allowlist is compared with a
// reference implementation on plain numbers, so ipaddr.js and our normalisation are checked by something independent.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { API_KEY_LENGTH, API_KEY_PREFIX, checkKeyFormat, generateApiKey } from './api-key.js';
import { ServiceError } from './errors.js';
import { clientIp, isAllowed, normalizeCidr, parseAllowlist, slash24 } from './ip-allowlist.js';

const RUNS = { numRuns: 500, seed: 12 };
// Before the legacy retirement date, so `mcp_` keys are judged by their format.
const NOW = new Date('2026-01-01T00:00:00Z');
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('API keys', () => {
  const bytes = fc.uint8Array({ minLength: 32, maxLength: 32 });
  /** A random source that replays fast-check's bytes, so each generated key is reproducible from the seed. */
  const randomFrom = (pool: Uint8Array) => (size: number) => Uint8Array.from({ length: size }, (_, i) => pool[i % pool.length]! % 248);

  it('checkKeyFormat never throws and answers one of its four verdicts', () => {
    const almostKey = fc.tuple(fc.constantFrom('', 'svc_', 'mcp_', 'SVC_', 'svc-'), fc.string({ unit: fc.constantFrom(...BASE62, '_', '-', '\0', 'é'), maxLength: 140 }));
    fc.assert(
      fc.property(fc.oneof(almostKey.map(([a, b]) => a + b), fc.string({ unit: 'binary' })), (bearer) => {
        expect(['valid', 'bad-checksum', 'malformed', 'legacy-retired']).toContain(checkKeyFormat(bearer, NOW));
      }),
      RUNS,
    );
  });

  it('every generated key is valid, and changing any one character makes it invalid', () => {
    fc.assert(
      fc.property(bytes, fc.nat(API_KEY_LENGTH - 1), fc.constantFrom(...BASE62), (pool, position, replacement) => {
        const { key, prefix, last4 } = generateApiKey(randomFrom(pool));
        expect(checkKeyFormat(key, NOW)).toBe('valid');
        expect(key.startsWith(prefix) && key.endsWith(last4) && key.startsWith(API_KEY_PREFIX)).toBe(true);
        const altered = key.slice(0, position) + replacement + key.slice(position + 1);
        // CRC32 catches every single-character change of the body, and a changed checksum no longer matches.
        if (altered !== key) expect(checkKeyFormat(altered, NOW)).not.toBe('valid');
      }),
      RUNS,
    );
  });
});

// The reference: IPv4 as an unsigned 32-bit number, a network as (base, prefix).
const fromNumber = (value: number): string => [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
const maskOf = (prefix: number): number => (prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0);
const inside = (ip: number, base: number, prefix: number): boolean => ((ip & maskOf(prefix)) >>> 0) === ((base & maskOf(prefix)) >>> 0);

const ipv4Number = fc.nat(0xffffffff);
const prefix = fc.nat(32);
/** A network written the way normalizeCidr accepts it: host bits cleared. */
const network = fc.tuple(ipv4Number, prefix).map(([value, bits]) => ({ base: (value & maskOf(bits)) >>> 0, bits }));
/** A source address near the network half the time, so both answers are exercised. */
const sourceFor = (base: number) => fc.oneof(ipv4Number, fc.nat(0xffff).map((offset) => (base + offset) % 2 ** 32));

describe('IP allowlists', () => {
  it('an IPv4 entry matches exactly the addresses of its CIDR, as numbers say', () => {
    fc.assert(
      fc.property(network.chain((net) => fc.tuple(fc.constant(net), sourceFor(net.base))), ([{ base, bits }, source]) => {
        const allowlist = parseAllowlist([`${fromNumber(base)}/${bits}`]);
        expect(isAllowed(allowlist, fromNumber(source))).toBe(inside(source, base, bits));
        // The IPv4-mapped form is the same IPv4 client (a dual-stack socket reports it so), in dotted and hex form.
        expect(isAllowed(allowlist, `::ffff:${fromNumber(source)}`)).toBe(inside(source, base, bits));
        const hex = `::ffff:${(source >>> 16).toString(16)}:${(source & 0xffff).toString(16)}`;
        expect(isAllowed(allowlist, hex)).toBe(inside(source, base, bits));
        // docs/domain.md: the deprecated IPv4-compatible form is IPv6, so it never passes an IPv4 entry.
        expect(isAllowed(allowlist, `::${fromNumber(source)}`)).toBe(false);
      }),
      RUNS,
    );
  });

  it('the same holds through a trusted proxy: X-Forwarded-For cannot smuggle an outside or IPv4-compatible address in', () => {
    const proxies = parseAllowlist(['192.0.2.1']);
    fc.assert(
      fc.property(network.chain((net) => fc.tuple(fc.constant(net), sourceFor(net.base))), fc.boolean(), ([{ base, bits }, source], compatible) => {
        const allowlist = parseAllowlist([`${fromNumber(base)}/${bits}`]);
        const claimed = compatible ? `::${fromNumber(source)}` : fromNumber(source);
        const ip = clientIp('192.0.2.1', `${claimed}, 192.0.2.1`, proxies);
        expect(isAllowed(allowlist, ip)).toBe(!compatible && inside(source, base, bits));
      }),
      RUNS,
    );
  });

  it('normalizeCidr never throws, and an accepted entry is already in its canonical form (round trip)', () => {
    const octet = fc.oneof(fc.nat(300).map(String), fc.constantFrom('0x7f', '010', '', '-1', ' 1'));
    const written = fc.oneof(
      fc.tuple(fc.array(octet, { minLength: 1, maxLength: 5 }), fc.option(fc.oneof(fc.nat(140).map(String), fc.constantFrom('', 'x', '08', '-1')))).map(
        ([octets, bits]) => octets.join('.') + (bits === null ? '' : `/${bits}`),
      ),
      fc.ipV6().map((ip) => ip),
      fc.tuple(fc.ipV6(), fc.nat(130)).map(([ip, bits]) => `${ip}/${bits}`),
      fc.ipV4().map((ip) => `::ffff:${ip}`),
      fc.string({ unit: 'binary', maxLength: 40 }),
    );
    fc.assert(
      fc.property(written, (entry) => {
        const result = normalizeCidr(entry);
        if (result.ok) expect(normalizeCidr(result.cidr)).toEqual(result);
        expect(() => slash24(entry)).not.toThrow();
      }),
      { numRuns: 1000, seed: 12 },
    );
  });

  it('parseAllowlist refuses anything it cannot read with INVALID_FIELD only', () => {
    const anything = fc.oneof(fc.anything(), fc.array(fc.oneof(fc.string(), fc.ipV4(), fc.integer()), { maxLength: 25 }));
    fc.assert(
      fc.property(anything, (value) => {
        try {
          parseAllowlist(value);
        } catch (error) {
          expect(error).toBeInstanceOf(ServiceError);
          expect((error as ServiceError).code).toBe('INVALID_FIELD');
        }
      }),
      RUNS,
    );
  });

  it('clientIp never throws, whatever the header says', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6(), fc.string()), fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 4 })), (socket, header) => {
        expect(typeof clientIp(socket, header, ['10.0.0.0/8', '::1/128'])).toBe('string');
      }),
      RUNS,
    );
  });
});
