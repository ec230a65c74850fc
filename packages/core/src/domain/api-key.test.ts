import { createHash, createHmac } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  API_KEY_LENGTH,
  canCreateKey,
  checkKeyFormat,
  generateApiKey,
  hashApiKey,
  isKeyUsable,
  looksLikeApiKey,
  MAX_ACTIVE_KEYS,
  resolveExpiry,
  shouldWriteLastUsed,
} from './api-key.js';
import { ServiceError } from './errors.js';
import { constantTimeEqualHex } from './secret-hash.js';

const NOW = new Date('2026-11-23T12:00:00Z');
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function sequentialBytes(size: number): Uint8Array {
  return Uint8Array.from({ length: size }, (_, i) => i);
}

function decodeBase62(text: string): number {
  return [...text].reduce((value, char) => value * 62 + BASE62.indexOf(char), 0);
}

/** Replaces the character at `index` with a different base62 character. */
function flip(key: string, index: number): string {
  const char = key[index] ?? '0';
  const replacement = BASE62[(BASE62.indexOf(char) + 1) % 62] ?? '0';
  return key.slice(0, index) + replacement + key.slice(index + 1);
}

describe('generateApiKey', () => {
  it('lays a key out as svc_ + 32 body chars + the base62 CRC32 of the body in 6 chars', () => {
    const { key, prefix, last4 } = generateApiKey(sequentialBytes);
    expect(key).toHaveLength(42);
    expect(API_KEY_LENGTH).toBe(42);
    const body = key.slice(4, 36);
    expect(body).toBe('0123456789ABCDEFGHIJKLMNOPQRSTUV');
    expect(decodeBase62(key.slice(36))).toBe(crc32(body));
    expect(prefix).toBe('svc_0123');
    expect(last4).toBe(key.slice(-4));
  });

  it('discards bytes that would bias the digits', () => {
    let call = 0;
    // First batch: all 255 (biased range, unusable); second: 61 everywhere -> every digit "z".
    const random = (size: number) => new Uint8Array(size).fill(call++ === 0 ? 255 : 61);
    const { key } = generateApiKey(random);
    expect(key.slice(4, 36)).toBe('z'.repeat(32));
    expect(call).toBe(2);
  });

  it('makes distinct, valid keys with the real random source', () => {
    const keys = Array.from({ length: 200 }, () => generateApiKey().key);
    expect(new Set(keys).size).toBe(200);
    for (const key of keys) expect(checkKeyFormat(key, NOW)).toBe('valid');
    // Every base62 digit shows up across 6400 random body characters.
    expect(new Set(keys.flatMap((key) => [...key.slice(4, 36)])).size).toBe(62);
  });
});

describe('checkKeyFormat', () => {
  const { key } = generateApiKey(sequentialBytes);

  it.each([...Array(38).keys()].map((i) => i + 4))('rejects a key with character %i changed', (index) => {
    expect(checkKeyFormat(flip(key, index), NOW)).toBe('bad-checksum');
  });

  it.each([
    ['', 'malformed'],
    ['svc_', 'malformed'],
    [key.slice(0, -1), 'malformed'],
    [`${key}0`, 'malformed'],
    [key.replace('svc_', 'SVC_'), 'malformed'],
    [`${key.slice(0, 10)}-${key.slice(11)}`, 'malformed'],
    [` ${key}`, 'malformed'],
    [`svc_${'A'.repeat(38)}`, 'bad-checksum'],
    ['ghp_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'malformed'],
    ['eyJhbGciOiJIUzI1NiJ9.e30.c2ln', 'malformed'],
    [`mcp_${'a1'.repeat(16)}`, 'valid'],
    [`mcp_${'a'.repeat(128)}`, 'valid'],
    [`mcp_${'a'.repeat(31)}`, 'malformed'],
    [`mcp_${'a'.repeat(129)}`, 'malformed'],
    [`mcp_${'a'.repeat(31)}_`, 'malformed'],
  ])('%j is %s', (candidate, expected) => {
    expect(checkKeyFormat(candidate, NOW)).toBe(expected);
  });

  it('accepts legacy keys until 2027-04-29T00:00:00Z and never after', () => {
    const legacy = `mcp_${'Zz9'.repeat(11)}`;
    expect(checkKeyFormat(legacy, new Date('2027-04-28T23:59:59.999Z'))).toBe('valid');
    expect(checkKeyFormat(legacy, new Date('2027-04-29T00:00:00Z'))).toBe('legacy-retired');
    expect(checkKeyFormat(legacy, new Date('2030-01-01T00:00:00Z'))).toBe('legacy-retired');
    expect(checkKeyFormat(key, new Date('2030-01-01T00:00:00Z'))).toBe('valid');
  });

  it('tells keys from session tokens', () => {
    expect(looksLikeApiKey(key)).toBe(true);
    expect(looksLikeApiKey('mcp_abc')).toBe(true);
    expect(looksLikeApiKey('eyJhbGciOiJIUzI1NiJ9.e30.x')).toBe(false);
  });
});

describe('hashApiKey', () => {
  it('is hex SHA-256 without a pepper and HMAC-SHA256 with one', () => {
    expect(hashApiKey('svc_x')).toBe(createHash('sha256').update('svc_x').digest('hex'));
    expect(hashApiKey('svc_x', 'pepper')).toBe(createHmac('sha256', 'pepper').update('svc_x').digest('hex'));
    expect(hashApiKey('svc_x', 'pepper')).not.toBe(hashApiKey('svc_x'));
    expect(hashApiKey('svc_x')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('compares digests in constant time and refuses non-hex or unequal lengths', () => {
    const digest = hashApiKey('svc_a');
    expect(constantTimeEqualHex(digest, hashApiKey('svc_a'))).toBe(true);
    expect(constantTimeEqualHex(digest, digest.toUpperCase())).toBe(true);
    expect(constantTimeEqualHex(digest, hashApiKey('svc_b'))).toBe(false);
    expect(constantTimeEqualHex(digest, digest.slice(2))).toBe(false);
    expect(constantTimeEqualHex(`${digest.slice(0, -1)}g`, `${digest.slice(0, -1)}g`)).toBe(false);
    expect(constantTimeEqualHex('abc', 'abc')).toBe(false);
  });
});

describe('resolveExpiry', () => {
  it.each([
    [undefined, 90],
    [1, 1],
    [30, 30],
    [365, 365],
  ])('expires_in_days %j gives %i days', (input, days) => {
    expect(resolveExpiry(input, NOW).getTime() - NOW.getTime()).toBe(days * 86_400_000);
  });

  it.each([[0], [-5], [366], [1.5], ['30'], [null], [Number.NaN], [Number.POSITIVE_INFINITY]])('refuses %j', (input) => {
    let thrown: unknown;
    try {
      resolveExpiry(input, NOW);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ServiceError);
    expect((thrown as ServiceError).code).toBe('INVALID_FIELD');
    expect((thrown as ServiceError).details).toMatchObject({ field: 'expires_in_days', max: 365 });
  });
});

describe('key lifecycle', () => {
  const expiresAt = new Date('2026-12-01T00:00:00Z');

  it.each([
    [new Date('2026-11-30T23:59:59Z'), null, true],
    [expiresAt, null, false],
    [new Date('2026-11-30T00:00:00Z'), new Date('2026-11-29T00:00:00Z'), false],
  ])('at %s (revoked %s) usable: %s', (now, revokedAt, usable) => {
    expect(isKeyUsable({ expiresAt, revokedAt }, now)).toBe(usable);
  });

  it.each([
    ['free', 0, 'SUBSCRIPTION_REQUIRED'],
    ['anonymous', 0, 'SUBSCRIPTION_REQUIRED'],
    ['free', 20, 'SUBSCRIPTION_REQUIRED'],
    ['dev', 0, 'ok'],
    ['dev', MAX_ACTIVE_KEYS - 1, 'ok'],
    ['team', MAX_ACTIVE_KEYS, 'KEY_LIMIT_REACHED'],
    ['business', 11, 'KEY_LIMIT_REACHED'],
  ] as const)('a %s account with %i active keys: %s', (tier, activeKeys, decision) => {
    expect(canCreateKey({ tier, activeKeys })).toBe(decision);
  });

  it.each([
    [null, true],
    [new Date(NOW.getTime() - 59_999), false],
    [new Date(NOW.getTime() - 60_000), true],
  ])('last used %s: write %s', (lastUsedAt, write) => {
    expect(shouldWriteLastUsed(lastUsedAt, NOW)).toBe(write);
  });
});
