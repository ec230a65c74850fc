// Property-based tests (fast-check) for pagination cursors: an issued cursor round-trips, and any string the daemon
// did not issue (random, edited, truncated, foreign) is refused with 400 INVALID_FIELD, field `cursor`, as
// docs/daemon.md says, both in the decoder and over HTTP.

import { ServiceError } from '@svc/core';
import { z } from '@hono/zod-openapi';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError } from '../test/http.js';
import { startTestServer, type TestServer } from '../test/server.js';
import { decodeSignedCursor, encodeSignedCursor } from './cursor.js';

const KEY = 'cursor-key-for-tests';
const position = z.object({ scannedAt: z.string(), score: z.number(), source: z.string(), package: z.string() });
const positionArb = fc.record({ scannedAt: fc.string(), score: fc.integer(), source: fc.constantFrom('npm', 'pypi', 'git'), package: fc.string() });
const BASE64URL = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'];

/** One edit of an issued cursor: a character replaced, inserted or removed. */
const edited = fc.tuple(positionArb, fc.nat(), fc.constantFrom(...BASE64URL, '.', '=', '!', '+', '/', ' '), fc.constantFrom('replace', 'insert', 'remove')).map(
  ([at, index, char, how]) => {
    const cursor = encodeSignedCursor(KEY, 'registry:recent', at);
    const i = index % cursor.length;
    const next = how === 'replace' ? cursor.slice(0, i) + char + cursor.slice(i + 1) : how === 'insert' ? cursor.slice(0, i) + char + cursor.slice(i) : cursor.slice(0, i) + cursor.slice(i + 1);
    return { cursor, next };
  },
);

function refusal(fn: () => unknown): ServiceError | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
}

describe('signed cursors', () => {
  it('an issued cursor decodes to the position it was issued for', () => {
    fc.assert(
      fc.property(positionArb, (at) => {
        expect(decodeSignedCursor(KEY, 'registry:recent', encodeSignedCursor(KEY, 'registry:recent', at), position)).toEqual(at);
      }),
      { numRuns: 300, seed: 12 },
    );
  });

  it('an edited cursor is refused with INVALID_FIELD on `cursor`, never read as some position', () => {
    fc.assert(
      fc.property(edited, ({ cursor, next }) => {
        fc.pre(next !== cursor);
        const error = refusal(() => decodeSignedCursor(KEY, 'registry:recent', next, position));
        expect(error?.code).toBe('INVALID_FIELD');
        expect(error?.details).toMatchObject({ field: 'cursor' });
      }),
      { numRuns: 1000, seed: 12 },
    );
  });

  it('random strings, other keys and other listings are refused the same way', () => {
    const foreign = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.constantFrom(...BASE64URL, '.') }),
      positionArb.map((at) => encodeSignedCursor('another-key', 'registry:recent', at)),
      positionArb.map((at) => encodeSignedCursor(KEY, 'registry:name', at)),
    );
    fc.assert(
      fc.property(foreign, (cursor) => {
        expect(refusal(() => decodeSignedCursor(KEY, 'registry:recent', cursor, position))?.code).toBe('INVALID_FIELD');
      }),
      { numRuns: 500, seed: 12 },
    );
  });

  // Found by the edit property: base64url decoding ignores characters outside its alphabet and the unused low bits
  // of the last character, so `sig` + `!` or a different last character still verified. Not a forgery (the position
  // is unchanged), but a cursor the daemon never issued was accepted.
  it('refuses a signature written differently from the issued one, even when it decodes to the same bytes', () => {
    const cursor = encodeSignedCursor(KEY, 'registry:recent', { scannedAt: 'a', score: 1, source: 'npm', package: 'p' });
    const last = cursor.at(-1)!;
    const sameBits = BASE64URL[(BASE64URL.indexOf(last) & ~0b1111) | ((BASE64URL.indexOf(last) + 1) & 0b1111)]!;
    for (const variant of [`${cursor}!`, cursor.slice(0, -1) + sameBits, `${cursor.slice(0, -2)}=${cursor.slice(-2)}`]) {
      expect(refusal(() => decodeSignedCursor(KEY, 'registry:recent', variant, position))?.code, variant).toBe('INVALID_FIELD');
    }
  });
});

describe('cursors over HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('GET /api/v1/registry answers 400 INVALID_FIELD (field cursor) to any cursor it did not issue', async () => {
    const issued = encodeSignedCursor(server.services.cursorKey, 'registry:recent', { scannedAt: '2026-01-01T00:00:00.000Z', score: 50, source: 'npm', package: 'x' });
    expect((await call(server, 'GET', `/api/v1/registry?cursor=${issued}`)).status).toBe(200);
    await fc.assert(
      fc.asyncProperty(fc.oneof(edited.map(({ next }) => next), fc.string({ minLength: 1 })), async (cursor) => {
        fc.pre(cursor !== issued);
        // A fresh hour each time, so the anonymous rate limit never answers instead.
        server.advance(3_600_000);
        const error = await expectError(await call(server, 'GET', `/api/v1/registry?cursor=${encodeURIComponent(cursor)}`), 400, 'INVALID_FIELD');
        expect(error.details).toMatchObject({ field: 'cursor' });
      }),
      { numRuns: 60, seed: 12 },
    );
  });
});
