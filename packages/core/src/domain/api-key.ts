// API-key format, GitHub-style (github.blog 2021-04-05 "Behind GitHub's new authentication token formats"):
//
//   svc_ <body: 32 chars [0-9A-Za-z]> <checksum: 6 chars [0-9A-Za-z]>        42 characters in all
//
// body      uniformly random base62 (32 × log2 62 ≈ 190 bits), drawn by rejection sampling so no digit is
//           more likely than another.
// checksum  CRC32 of the body's ASCII bytes, written in base62 with the alphabet 0-9A-Za-z, most
//           significant digit first, left-padded with "0" to 6 digits (2^32 < 62^6).
//
// The prefix makes leaked keys greppable by secret scanners; the checksum rejects typos and random strings
// before any database lookup. It is not a secret and proves nothing: anyone can compute a valid one.
//
// Legacy keys (spec 5.1 rule 2, 9.4): `mcp_` + 32 to 128 chars [A-Za-z0-9], no checksum. They work until their
// own expiry, and not at all from 2027-04-29T00:00:00Z.

import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { invalidField } from './errors.js';
import { hashSecret } from './secret-hash.js';
import { canMintApiKeys, type Tier } from './tiers.js';

export const API_KEY_PREFIX = 'svc_';
export const LEGACY_API_KEY_PREFIX = 'mcp_';
export const API_KEY_BODY_LENGTH = 32;
export const API_KEY_CHECKSUM_LENGTH = 6;
export const API_KEY_LENGTH = API_KEY_PREFIX.length + API_KEY_BODY_LENGTH + API_KEY_CHECKSUM_LENGTH;
/** Characters of a key shown in key lists: the prefix and 4 body characters (≈24 of the 190 bits). */
export const API_KEY_DISPLAY_PREFIX_LENGTH = 8;
/** Spec 9.4: the legacy prefix is fully retired at this instant. */
export const LEGACY_KEYS_RETIRED_AT = new Date('2027-04-29T00:00:00Z');

export const MAX_ACTIVE_KEYS = 10;
export const DEFAULT_KEY_EXPIRY_DAYS = 90;
export const MAX_KEY_EXPIRY_DAYS = 365;
export const MIN_KEY_EXPIRY_DAYS = 1;
/** Spec 2.8 / 8.4: last_used is written at most once a minute per key. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = /^svc_[0-9A-Za-z]{38}$/;
const LEGACY_KEY_PATTERN = /^mcp_[0-9A-Za-z]{32,128}$/;
// 248 = 4 × 62: bytes at or above it are discarded so `byte % 62` is uniform.
const UNBIASED_BYTE_LIMIT = 248;

export type RandomBytes = (size: number) => Uint8Array;

export interface GeneratedApiKey {
  /** The secret; shown once, never stored. */
  key: string;
  /** Stored and shown in key lists, e.g. `svc_AbCd`. */
  prefix: string;
  /** Stored and shown in key lists; checksum characters, so they reveal nothing of the body. */
  last4: string;
}

export function generateApiKey(random: RandomBytes = randomBytes): GeneratedApiKey {
  let body = '';
  while (body.length < API_KEY_BODY_LENGTH) {
    for (const byte of random(API_KEY_BODY_LENGTH)) {
      if (byte < UNBIASED_BYTE_LIMIT && body.length < API_KEY_BODY_LENGTH) body += BASE62[byte % 62];
    }
  }
  const key = API_KEY_PREFIX + body + checksum(body);
  return { key, prefix: key.slice(0, API_KEY_DISPLAY_PREFIX_LENGTH), last4: key.slice(-4) };
}

function checksum(body: string): string {
  let value = crc32(body);
  let digits = '';
  for (let i = 0; i < API_KEY_CHECKSUM_LENGTH; i++) {
    digits = BASE62[value % 62] + digits;
    value = Math.floor(value / 62);
  }
  return digits;
}

export type KeyFormatCheck = 'valid' | 'bad-checksum' | 'malformed' | 'legacy-retired';

/**
 * Whether a bearer value can be an API key at all, before any lookup. Anything but 'valid' is a 401 with
 * no database work. `now` decides whether legacy keys are still accepted.
 */
export function checkKeyFormat(key: string, now: Date): KeyFormatCheck {
  if (key.startsWith(LEGACY_API_KEY_PREFIX)) {
    if (!LEGACY_KEY_PATTERN.test(key)) return 'malformed';
    return now.getTime() >= LEGACY_KEYS_RETIRED_AT.getTime() ? 'legacy-retired' : 'valid';
  }
  if (!KEY_PATTERN.test(key)) return 'malformed';
  const body = key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + API_KEY_BODY_LENGTH);
  return key.slice(-API_KEY_CHECKSUM_LENGTH) === checksum(body) ? 'valid' : 'bad-checksum';
}

/** Whether a bearer value looks like an API key rather than a session JWT (routes accept one or the other). */
export function looksLikeApiKey(bearer: string): boolean {
  return bearer.startsWith(API_KEY_PREFIX) || bearer.startsWith(LEGACY_API_KEY_PREFIX);
}

/** The stored lookup value of a key; see hashSecret for why a fast hash is right. */
export function hashApiKey(key: string, pepper?: string): string {
  return hashSecret(key, pepper);
}

/**
 * The expiry instant of a new key from the request's `expires_in_days` (spec 5.1 rule 5: default 90, at most
 * 365, no never-expires). Throws INVALID_FIELD naming the field for anything but an integer in range.
 */
export function resolveExpiry(expiresInDays: unknown, now: Date): Date {
  if (expiresInDays === undefined) return addDays(now, DEFAULT_KEY_EXPIRY_DAYS);
  if (
    typeof expiresInDays !== 'number' ||
    !Number.isInteger(expiresInDays) ||
    expiresInDays < MIN_KEY_EXPIRY_DAYS ||
    expiresInDays > MAX_KEY_EXPIRY_DAYS
  ) {
    throw invalidField(
      'expires_in_days',
      `expires_in_days must be a whole number from ${MIN_KEY_EXPIRY_DAYS} to ${MAX_KEY_EXPIRY_DAYS}.`,
      { min: MIN_KEY_EXPIRY_DAYS, max: MAX_KEY_EXPIRY_DAYS },
    );
  }
  return addDays(now, expiresInDays);
}

function addDays(now: Date, days: number): Date {
  return new Date(now.getTime() + days * 86_400_000);
}

/** Spec 3 rule 2: usable from creation until expiry or revocation; expiry is exclusive. */
export function isKeyUsable(key: { expiresAt: Date; revokedAt?: Date | null | undefined }, now: Date): boolean {
  return key.revokedAt == null && now.getTime() < key.expiresAt.getTime();
}

export type KeyCreationDecision = 'ok' | 'SUBSCRIPTION_REQUIRED' | 'KEY_LIMIT_REACHED';

/** Spec 5.1 rules 4 and 6, in that order: a free account learns about the plan, not the count. */
export function canCreateKey(input: { tier: Tier; activeKeys: number }): KeyCreationDecision {
  if (!canMintApiKeys(input.tier)) return 'SUBSCRIPTION_REQUIRED';
  return input.activeKeys >= MAX_ACTIVE_KEYS ? 'KEY_LIMIT_REACHED' : 'ok';
}

/** Spec 8.4: at most one last_used write per minute per key. */
export function shouldWriteLastUsed(lastUsedAt: Date | null | undefined, now: Date): boolean {
  return lastUsedAt == null || now.getTime() - lastUsedAt.getTime() >= LAST_USED_WRITE_INTERVAL_MS;
}
