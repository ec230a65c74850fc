import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { SVC_VERSION } from './version.js';

test('SVC_VERSION matches the core package version', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  expect(SVC_VERSION).toBe(pkg.version);
});
