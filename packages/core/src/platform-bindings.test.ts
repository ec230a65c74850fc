// The scanner parses with oxc-parser, a native addon shipped as one optional package per platform. npm installs from
// package-lock.json exactly what it lists, so a lockfile written on one platform without the others' bindings makes
// `npm ci` fail (or the scanner crash with "Cannot find native binding") on macOS, Windows and Alpine.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  version?: string;
  hasInstallScript?: boolean;
  optionalDependencies?: Record<string, string>;
}

const lock = JSON.parse(readFileSync(fileURLToPath(new URL('../../../package-lock.json', import.meta.url)), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

describe('package-lock.json', () => {
  it('lists the oxc-parser binding of every platform users run svc on', () => {
    const parser = lock.packages['node_modules/oxc-parser'];
    expect(parser?.version).toBeDefined();
    for (const platform of ['darwin-arm64', 'darwin-x64', 'win32-x64-msvc', 'linux-x64-gnu', 'linux-x64-musl', 'linux-arm64-gnu']) {
      expect(lock.packages[`node_modules/@oxc-parser/binding-${platform}`]?.version, platform).toBe(parser?.version);
    }
  });

  it('lists every optional dependency of every package it holds, so npm ci accepts it on any platform', () => {
    const missing = Object.entries(lock.packages).flatMap(([where, entry]) =>
      Object.keys(entry.optionalDependencies ?? {}).filter(
        (name) => !(`node_modules/${name}` in lock.packages) && !(`${where}/node_modules/${name}` in lock.packages),
      ).map((name) => `${where} → ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('runs install scripts only to build native code, never a telemetry or download step', () => {
    // Each entry was reviewed: what its install script does. A new one fails here until it is reviewed too
    // (swagger-ui-dist is pinned to 5.17.14, the last release before it pulled in @scarf/scarf's phoning postinstall).
    const reviewed: Record<string, string> = {
      'better-sqlite3': 'prebuild-install, else node-gyp: the daemon\'s SQLite binding',
      'tree-sitter-python': 'node-gyp rebuild of the grammar\'s optional Node binding (svc loads its .wasm)',
      esbuild: 'install.js: checks that the platform binary package was installed (dev dependency of tsup)',
    };
    const scripted = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(scripted.filter((name) => !(name in reviewed))).toEqual([]);
    expect(Object.keys(lock.packages).filter((where) => where.endsWith('node_modules/@scarf/scarf'))).toEqual([]);
  });
});
