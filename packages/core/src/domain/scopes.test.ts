import { describe, expect, it } from 'vitest';
import { DEFAULT_KEY_SCOPES, expandScopes, hasScope, parseScopes, ROUTE_SCOPES, type Scope } from './scopes.js';

describe('scopes (spec 5.2)', () => {
  it.each([
    ['scan:read', ['registry:read', 'scan:get', 'scan:list', 'watchlist:read']],
    ['scan:write', ['registry:read', 'scan:get', 'scan:list', 'scan:submit', 'watchlist:read']],
    ['scan:submit', ['scan:submit']],
  ] as const)('%s expands to %j', (scope, expanded) => {
    expect([...expandScopes([scope])].sort()).toEqual(expanded);
  });

  // Each row: what a key holds, which route it calls, whether the authorizer lets it through.
  it.each([
    [['scan:list'], 'POST /api/v1/scan', false],
    [['scan:list'], 'GET /api/v1/scans', true],
    [['scan:list'], 'GET /api/v1/scan/{id}', false],
    [['scan:submit'], 'POST /api/v1/scan', true],
    [['scan:submit'], 'GET /api/v1/scans', false],
    [['scan:get'], 'GET /api/v1/scan/{id}', true],
    [['registry:read'], 'GET /api/v1/registry/*', true],
    [['registry:read'], 'GET /api/v1/scans', false],
    [['scan:read'], 'GET /api/v1/scans', true],
    [['scan:read'], 'GET /api/v1/scan/{id}', true],
    [['scan:read'], 'GET /api/v1/registry/*', true],
    [['scan:read'], 'GET /api/v1/watchlist/*', true],
    [['scan:read'], 'POST /api/v1/scan', false],
    [['scan:write'], 'POST /api/v1/scan', true],
    [['scan:write'], 'GET /api/v1/registry/*', true],
    [['scan:write'], 'GET /api/v1/watchlist/*', true],
    [[...DEFAULT_KEY_SCOPES], 'POST /api/v1/scan', true],
    [[...DEFAULT_KEY_SCOPES], 'GET /api/v1/scan/{id}', true],
    [[...DEFAULT_KEY_SCOPES], 'GET /api/v1/registry/*', false],
    [[], 'GET /api/v1/scans', false],
    [['SCAN:WRITE', 'admin'], 'POST /api/v1/scan', false],
  ] as const)('a key with %j calling %s: %s', (granted, route, allowed) => {
    expect(hasScope(granted, ROUTE_SCOPES[route])).toBe(allowed);
  });

  it('treats an umbrella as required only when all of it is held', () => {
    expect(hasScope(['scan:list', 'scan:get', 'registry:read'], 'scan:read')).toBe(false);
    expect(hasScope(['scan:list', 'scan:get', 'registry:read', 'watchlist:read'], 'scan:read')).toBe(true);
    expect(hasScope(['scan:read'], 'scan:write')).toBe(false);
  });

  it('defaults to scan:submit, scan:list, scan:get', () => {
    expect(parseScopes(undefined)).toEqual({ ok: true, scopes: ['scan:submit', 'scan:list', 'scan:get'] });
  });

  it('keeps umbrellas as given and drops duplicates', () => {
    expect(parseScopes(['scan:read', 'scan:submit', 'scan:read'])).toEqual({ ok: true, scopes: ['scan:read', 'scan:submit'] });
  });

  it.each([
    [['scan:submit', 'scan:delete', 'Scan:List'], ['scan:delete', 'Scan:List']],
    [['scan:get', 7, null], ['7', 'null']],
    [[' scan:get'], [' scan:get']],
  ])('names the invalid entries of %j', (input, invalid) => {
    const result = parseScopes(input);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.invalid).toEqual(invalid);
      for (const entry of invalid) expect(result.message).toContain(entry);
    }
  });

  it.each([[[]], ['scan:submit'], [{}], [null]])('refuses %j as a scope list', (input) => {
    expect(parseScopes(input).ok).toBe(false);
  });

  it('requires a known scope for every route', () => {
    const all: Scope[] = ['scan:write'];
    for (const scope of Object.values(ROUTE_SCOPES)) expect(hasScope(all, scope)).toBe(true);
  });
});
