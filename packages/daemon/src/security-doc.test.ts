// docs/security.md must match the code: every SVC_* variable the daemon (and the core code it runs) reads is
// documented there or in docs/daemon.md, and every default in the doc's limits table equals the constant it names.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_ARCHIVE_LIMITS, DEFAULT_KEY_EXPIRY_DAYS, DEFAULT_REMOTE_LIMITS, MAX_ACTIVE_KEYS, MAX_ALLOWLIST_ENTRIES, MAX_KEY_EXPIRY_DAYS, REQUEST_LIMIT, SCAN_LIMITS } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from './app.js';
import { LOGIN_CODE_LIMITS, LOGIN_CODE_MAX_ATTEMPTS, LOGIN_CODE_TTL_MS, LOGIN_IP_LIMITS, VERIFY_IP_LIMITS } from './auth/login-codes.js';
import { SESSION_LIFETIME_SECONDS } from './auth/session.js';
import { DEFAULT_SCAN_TIMEOUT_SECONDS, MAX_SCAN_TIMEOUT_SECONDS, MAX_SCAN_WORKERS, MIN_JWT_SECRET_LENGTH } from './config.js';
import { DEFAULT_SCAN_HEAP_MB } from './jobs/pool.js';
import { SMTP_TIMEOUT_MS } from './mail/smtp.js';
import { MAX_BEARER_TOKEN_CHARS, MAX_STREAMS_PER_CLIENT } from './routes/scans.js';
import { REFUSED_CREDENTIAL_LIMITS } from './middleware/refused-credentials.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const SECURITY = readFileSync(path.join(REPO, 'docs/security.md'), 'utf8');
const DAEMON = readFileSync(path.join(REPO, 'docs/daemon.md'), 'utf8');

/** The constants the limits table may name; each must appear in it, so a row cannot silently go missing. */
const CONSTANTS: Record<string, unknown> = {
  DEFAULT_ARCHIVE_LIMITS,
  SCAN_LIMITS,
  REQUEST_LIMIT,
  MAX_ACTIVE_KEYS,
  DEFAULT_KEY_EXPIRY_DAYS,
  MAX_KEY_EXPIRY_DAYS,
  MAX_ALLOWLIST_ENTRIES,
  MAX_BODY_BYTES,
  LOGIN_CODE_LIMITS,
  LOGIN_CODE_MAX_ATTEMPTS,
  LOGIN_CODE_TTL_MS,
  LOGIN_IP_LIMITS,
  VERIFY_IP_LIMITS,
  REFUSED_CREDENTIAL_LIMITS,
  SESSION_LIFETIME_SECONDS,
  DEFAULT_SCAN_TIMEOUT_SECONDS,
  MAX_SCAN_TIMEOUT_SECONDS,
  MAX_SCAN_WORKERS,
  MIN_JWT_SECRET_LENGTH,
  DEFAULT_SCAN_HEAP_MB,
  SMTP_TIMEOUT_MS,
  MAX_STREAMS_PER_CLIENT,
  DEFAULT_REMOTE_LIMITS,
  MAX_BEARER_TOKEN_CHARS,
};

/** `SCAN_LIMITS.free.deep.week` or `LOGIN_IP_LIMITS[1].limit` → the value in code. */
function valueOf(reference: string): unknown {
  const [root, ...keys] = reference.replace(/\[(\d+)\]/g, '.$1').split('.');
  let value: unknown = CONSTANTS[root!];
  for (const key of keys) value = (value as Record<string, unknown> | undefined)?.[key];
  return value;
}

/** The rows of the table under `## Limits`: [limit, setting, default, constant]. */
function limitRows(): string[][] {
  const section = SECURITY.split(/^## /m).find((part) => part.startsWith('Limits'));
  expect(section, 'docs/security.md has a "## Limits" section').toBeDefined();
  return section!
    .split('\n')
    .filter((line) => line.startsWith('|') && !line.startsWith('|---'))
    .slice(1)
    .map((line) => line.slice(1, -1).split('|').map((cell) => cell.trim()));
}

/** Source files (not tests) under dir. */
function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.split(path.sep).includes('test'))
    .map((name) => path.join(dir, name));
}

describe('docs/security.md', () => {
  it('names every SVC_* variable the daemon reads (or docs/daemon.md does)', () => {
    const read = new Set<string>();
    for (const file of [...sources(path.join(REPO, 'packages/daemon/src')), ...sources(path.join(REPO, 'packages/core/src'))]) {
      for (const match of readFileSync(file, 'utf8').matchAll(/env(?:\.|\[\s*['"])(SVC_[A-Z0-9_]+)/g)) read.add(match[1]!);
    }
    // The scan above must find the daemon's own configuration, or it has stopped seeing anything.
    expect(read).toContain('SVC_SCAN_ROOTS');
    expect(read).toContain('SVC_GIT_PROTOCOLS');
    const missing = [...read].filter((name) => !SECURITY.includes(name) && !DAEMON.includes(name));
    expect(missing).toEqual([]);
  });

  it('states every default of the limits table as the constant it names holds', () => {
    const rows = limitRows();
    expect(rows.length).toBeGreaterThan(10);
    const named = new Set<string>();
    for (const [limit, , written, constant] of rows) {
      const reference = /^`([A-Za-z_][\w.[\]]*)`$/.exec(constant ?? '')?.[1];
      expect(reference, `row "${limit}" names a constant in backticks`).toBeDefined();
      const value = valueOf(reference!);
      expect(typeof value, `${reference} is a number in code`).toBe('number');
      // The first number of the default column, thousands separators removed.
      const stated = Number(/\d[\d,]*/.exec(written ?? '')?.[0]?.replace(/,/g, ''));
      if (reference === 'MAX_SCAN_WORKERS') expect(written).toContain(`highest accepted ${value as number}`);
      else expect(stated, `${limit}: ${written}`).toBe(value);
      named.add(reference!.split(/[.[]/)[0]!);
    }
    expect([...named].sort()).toEqual(Object.keys(CONSTANTS).sort());
  });
});
