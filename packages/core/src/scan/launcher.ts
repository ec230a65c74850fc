// Thin launchers: packages whose command only starts a server that a dependency defines (`cli.js` requiring
// `some-lib/lib/mcp/program`). Their own files hold no tool, so scanning them alone says nothing about what the model
// can make the server do; the dependency that registers the tools is scanned too, as a target of its own.
import semver from 'semver';
import type { Manifest, SourceFile, ToolDefinition } from './model.js';

/** A dependency a launcher's entry point loads, and the version to scan: the lockfile's, else the manifest's range. */
export interface LaunchedDependency {
  name: string;
  spec: string;
}

/** More would be a package that happens to have no tools, not a launcher. */
const MAX_LAUNCHED = 3;

// Static `import … from 'x'`, `export … from 'x'`, `require('x')` and `import('x')` with a literal specifier.
const SPECIFIERS = /(?:\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])([^'"\n]+)\1/gm;

function packageNameOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:') || specifier.includes(':')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? (parts.length >= 2 ? `${parts[0]}/${parts[1]}` : undefined) : parts[0];
}

const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

function entryPaths(packageJson: Record<string, unknown>): string[] {
  const bin = packageJson.bin;
  const entries = typeof bin === 'string' ? [bin] : Object.values(record(bin)).filter((value): value is string => typeof value === 'string');
  if (typeof packageJson.main === 'string') entries.push(packageJson.main);
  return [...new Set(entries.map((entry) => entry.replace(/^\.\//, '')))];
}

/** The version the package's own lockfile pins for `name` (npm-shrinkwrap.json or package-lock.json, v2/v3 layout). */
function lockedVersion(files: readonly SourceFile[], name: string): string | undefined {
  for (const lockfile of ['npm-shrinkwrap.json', 'package-lock.json']) {
    const text = files.find((file) => file.path === lockfile)?.text;
    if (!text) continue;
    try {
      const version = record(record(record(JSON.parse(text)).packages)[`node_modules/${name}`]).version;
      if (typeof version === 'string') return version;
    } catch {
      // A broken lockfile pins nothing; the manifest's range still does.
    }
  }
  return undefined;
}

/**
 * The runtime dependencies the package's entry points (`bin`, `main`) load, when the package declares no tool of its
 * own. Empty for a package that defines tools, has no entry point, or whose entry points load only its own files.
 */
export function launchedDependencies(files: readonly SourceFile[], manifests: readonly Manifest[], tools: readonly ToolDefinition[]): LaunchedDependency[] {
  if (tools.length > 0) return [];
  const manifest = manifests.find((candidate) => candidate.kind === 'package.json' && candidate.path === 'package.json');
  if (!manifest) return [];
  const packageJson = record(manifest.data);
  const dependencies = record(packageJson.dependencies);
  const launched = new Map<string, LaunchedDependency>();
  for (const entry of entryPaths(packageJson)) {
    const text = files.find((file) => file.path === entry)?.text;
    if (!text) continue;
    for (const match of text.matchAll(SPECIFIERS)) {
      const name = packageNameOf(match[2]!);
      const range = name === undefined ? undefined : dependencies[name];
      if (name === undefined || typeof range !== 'string' || launched.has(name)) continue;
      const spec = lockedVersion(files, name) ?? range;
      // A registry version, range or tag only: `file:`, `git+…`, `workspace:` and tarball URLs name code the registry
      // does not serve (the launcher stays partial with the reason).
      if (!semver.validRange(spec) && !/^[a-z][\w.-]*$/i.test(spec)) continue;
      launched.set(name, { name, spec });
    }
  }
  return [...launched.values()].slice(0, MAX_LAUNCHED);
}
