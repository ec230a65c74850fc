import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ERROR_MESSAGES,
  ERROR_CODES,
  ERROR_STATUS,
  errorEnvelope,
  invalidField,
  isErrorCode,
  parseErrorEnvelope,
  rateLimited,
  ServiceError,
  successEnvelope,
  toServiceError,
} from './errors.js';

describe('error codes', () => {
  it('gives every code an HTTP error status and a message, and nothing else', () => {
    expect(Object.keys(ERROR_STATUS).sort()).toEqual([...ERROR_CODES].sort());
    expect(Object.keys(DEFAULT_ERROR_MESSAGES).sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) {
      expect(ERROR_STATUS[code]).toBeGreaterThanOrEqual(400);
      expect(ERROR_STATUS[code]).toBeLessThan(600);
      expect(DEFAULT_ERROR_MESSAGES[code].length).toBeGreaterThan(0);
    }
  });

  it.each([
    ['EMAIL_MISMATCH', 403],
    ['ALREADY_IN_TEAM', 409],
    ['INVITE_ALREADY_PENDING', 409],
    ['CANNOT_REMOVE_OWNER', 403],
    ['OWNER_CANNOT_LEAVE', 409],
    ['NOT_A_MEMBER', 404],
    ['INVALID_FIELD', 400],
    ['RETRY', 503],
    ['SUBSCRIPTION_REQUIRED', 402],
    ['RATE_LIMITED', 429],
  ] as const)('spec 7.2: %s is %i', (code, status) => {
    expect(ERROR_STATUS[code]).toBe(status);
  });

  it.each([
    ['UNAUTHORIZED', 401],
    ['FORBIDDEN', 403],
    ['NOT_FOUND', 404],
    ['INVITE_NOT_FOUND', 404],
    ['INVITE_EXPIRED', 410],
    ['METHOD_NOT_ALLOWED', 405],
    ['PAYLOAD_TOO_LARGE', 413],
    ['UNSUPPORTED_MEDIA_TYPE', 415],
    ['CONFLICT', 409],
    ['KEY_LIMIT_REACHED', 409],
    ['BILLING_NOT_CONFIGURED', 501],
    ['INTERNAL_ERROR', 500],
    ['SERVICE_UNAVAILABLE', 503],
  ] as const)('gap-filler %s is %i', (code, status) => {
    expect(ERROR_STATUS[code]).toBe(status);
  });

  it('recognises only its own codes', () => {
    expect(isErrorCode('RATE_LIMITED')).toBe(true);
    expect(isErrorCode('rate_limited')).toBe(false);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode(429)).toBe(false);
  });
});

describe('envelopes', () => {
  it('wraps a ServiceError with its status, default message and details', () => {
    const error = new ServiceError('FORBIDDEN');
    expect(error).toBeInstanceOf(Error);
    expect(error.status).toBe(403);
    expect(errorEnvelope(error)).toEqual({
      success: false,
      error: { code: 'FORBIDDEN', message: DEFAULT_ERROR_MESSAGES.FORBIDDEN },
    });
    expect('details' in errorEnvelope(error).error).toBe(false);
  });

  it('names the field of a validation failure', () => {
    const envelope = errorEnvelope(invalidField('label', 'label is required.'));
    expect(envelope.error).toEqual({ code: 'INVALID_FIELD', message: 'label is required.', details: { field: 'label' } });
  });

  it('wraps data', () => {
    expect(successEnvelope({ id: 'k1' })).toEqual({ success: true, data: { id: 'k1' } });
  });

  it('builds the spec 7.3 rate-limit error with the wait in the message', () => {
    const error = rateLimited({ window: 'minute', tier: 'free', current: 5, limit: 5, retry_after_seconds: 41.2 });
    expect(error.status).toBe(429);
    expect(error.details).toEqual({ window: 'minute', tier: 'free', current: 5, limit: 5, retry_after_seconds: 42 });
    expect(error.message).toContain('42 seconds');
  });

  it('hides the text of unexpected errors', () => {
    const hidden = toServiceError(new Error('SQLITE_ERROR near /var/lib/svc/db'));
    expect(hidden.code).toBe('INTERNAL_ERROR');
    expect(hidden.message).not.toContain('SQLITE');
    const known = new ServiceError('CONFLICT', 'scan already completed');
    expect(toServiceError(known)).toBe(known);
  });

  it('parses error envelopes for the client, keeping unknown codes as text', () => {
    const body = JSON.parse(JSON.stringify(errorEnvelope(rateLimited({ window: 'day', tier: 'dev', current: 50, limit: 50, retry_after_seconds: 3 }))));
    expect(parseErrorEnvelope(body)).toMatchObject({ code: 'RATE_LIMITED', known: true, details: { window: 'day' } });
    expect(parseErrorEnvelope({ success: false, error: { code: 'NEW_CODE', message: 'x' } })).toEqual({ code: 'NEW_CODE', known: false, message: 'x' });
    for (const notAnError of [null, 'text', [], { success: true, data: {} }, { success: false, error: { code: 1, message: 'x' } }, { success: false }]) {
      expect(parseErrorEnvelope(notAnError)).toBeUndefined();
    }
  });
});
