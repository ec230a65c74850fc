// npm packages: resolve the spec against the packument, download the tarball, check its integrity, unpack it.
// The registry and credentials come from the user's own npm configuration, so private registries and scopes work
// the way `npm install` would use them.

import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ini from 'ini';
import semver from 'semver';
import type { PackageMetadata, ScanTarget, Workspace } from '../model.js';
import { DEFAULT_ARCHIVE_LIMITS, extractTarGz } from '../archive.js';
import { asTargetError, TargetError } from './errors.js';
import { downloadFile, getJson } from './http.js';
import { digestToIntegrity, hashFile, parseIntegrity, type ExpectedDigest } from './integrity.js';
import type { SourceOptions } from './options.js';
import { removeTempDir, withTempDir } from './temp.js';

export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org/';

/** Flat npm settings (`registry`, `@scope:registry`, `//host/:_authToken` …) merged from user and project .npmrc. */
export type NpmSettings = Record<string, string>;

export interface NpmConfigSources {
  cwd?: string;
  home?: string;
  env?: NodeJS.ProcessEnv;
}

// npm expands ${VAR} in .npmrc values, which is how CI setups keep tokens out of the file.
function expandEnv(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/(\\*)\$\{([^}]+)\}/g, (whole, escapes: string, name: string) =>
    escapes.length % 2 === 1 ? whole.slice(1) : `${escapes}${env[name] ?? ''}`,
  );
}

function readNpmrc(file: string, env: NodeJS.ProcessEnv): NpmSettings {
  if (!existsSync(file)) return {};
  let parsed: Record<string, unknown>;
  try {
    parsed = ini.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
  const settings: NpmSettings = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value === 'string') settings[key] = expandEnv(value, env);
  }
  return settings;
}

/** The user's npm settings, lowest precedence first: user .npmrc, project .npmrc, `npm_config_*` environment. */
export function loadNpmSettings(sources: NpmConfigSources = {}): NpmSettings {
  const env = sources.env ?? process.env;
  const home = sources.home ?? os.homedir();
  const userConfig = env.npm_config_userconfig ?? env.NPM_CONFIG_USERCONFIG ?? path.join(home, '.npmrc');
  const settings: NpmSettings = {
    ...readNpmrc(userConfig, env),
    ...readNpmrc(path.join(sources.cwd ?? process.cwd(), '.npmrc'), env),
  };
  for (const [key, value] of Object.entries(env)) {
    const match = /^npm_config_(.+)$/i.exec(key);
    if (match?.[1] && value !== undefined && /^(registry|@[^:]+:registry)$/i.test(match[1])) {
      settings[match[1].toLowerCase()] = value;
    }
  }
  return settings;
}

function withTrailingSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

/** The registry a package name is fetched from: its scope's registry, else the default one. */
export function registryFor(name: string, settings: NpmSettings): string {
  const scope = name.startsWith('@') ? name.slice(0, name.indexOf('/')) : undefined;
  const scoped = scope ? settings[`${scope}:registry`] : undefined;
  return withTrailingSlash(scoped ?? settings.registry ?? DEFAULT_NPM_REGISTRY);
}

/**
 * The Authorization header npm would send to `url`: credentials are keyed by "nerf dart" (`//host[:port]/path/`),
 * most specific path first, so a token is only sent to the registry it was issued for.
 */
export function authorizationFor(url: string, settings: NpmSettings): string | undefined {
  const parsed = new URL(url);
  const segments = parsed.pathname.split('/').slice(1, -1);
  for (let length = segments.length; length >= 0; length -= 1) {
    const dart = `//${parsed.host}/${segments.slice(0, length).map((s) => `${s}/`).join('')}`;
    const token = settings[`${dart}:_authToken`];
    if (token) return `Bearer ${token}`;
    const basic = settings[`${dart}:_auth`];
    if (basic) return `Basic ${basic}`;
    const username = settings[`${dart}:username`];
    const password = settings[`${dart}:_password`];
    if (username && password) {
      return `Basic ${Buffer.from(`${username}:${Buffer.from(password, 'base64').toString('utf8')}`).toString('base64')}`;
    }
  }
  return undefined;
}

interface PackumentVersion {
  name?: string;
  version: string;
  dist?: { tarball?: string; integrity?: string; shasum?: string };
  maintainers?: Array<{ name?: string } | string>;
  deprecated?: string;
  repository?: string | { url?: string };
}

interface Packument {
  name?: string;
  'dist-tags'?: Record<string, string>;
  versions?: Record<string, PackumentVersion>;
  time?: Record<string, string>;
  maintainers?: Array<{ name?: string } | string>;
}

/** What `npm install name@spec` would pick: a dist-tag, an exact version, or the best match of a range. */
export function pickVersion(packument: Packument, spec: string): string | undefined {
  const tags = packument['dist-tags'] ?? {};
  const versions = Object.keys(packument.versions ?? {});
  const wanted = spec === '' || spec === '*' ? 'latest' : spec;
  const tagged = Object.hasOwn(tags, wanted) ? tags[wanted] : undefined;
  if (tagged !== undefined) return versions.includes(tagged) ? tagged : undefined;
  const exact = semver.valid(wanted, { loose: true });
  if (exact) return versions.find((v) => semver.eq(v, exact, { loose: true }));
  if (!semver.validRange(wanted, { loose: true })) return undefined;
  // Like npm: the `latest` tag wins when it satisfies the range, so a range never picks an unpublished-by-intent prerelease.
  const latest = tags.latest;
  if (latest !== undefined && semver.satisfies(latest, wanted, { loose: true })) return latest;
  return semver.maxSatisfying(versions, wanted, { loose: true }) ?? undefined;
}

function maintainerNames(list: PackumentVersion['maintainers']): string[] | undefined {
  const names = (list ?? [])
    .map((m) => (typeof m === 'string' ? m.replace(/\s*<.*$/, '') : m.name))
    .filter((n): n is string => typeof n === 'string' && n.length > 0);
  return names.length > 0 ? names : undefined;
}

async function cachedTarball(cacheDir: string | undefined, expected: ExpectedDigest): Promise<string | undefined> {
  if (!cacheDir) return undefined;
  const file = path.join(cacheDir, 'npm', `${expected.algorithm}-${expected.hex}.tgz`);
  if (!existsSync(file)) return undefined;
  // The cache is outside our temp dir and could have been tampered with: check it like a download.
  if ((await hashFile(file, expected.algorithm)) === expected.hex) return file;
  await rm(file, { force: true });
  return undefined;
}

async function storeInCache(cacheDir: string, expected: ExpectedDigest, file: string): Promise<void> {
  const dir = path.join(cacheDir, 'npm');
  await mkdir(dir, { recursive: true });
  const final = path.join(dir, `${expected.algorithm}-${expected.hex}.tgz`);
  const partial = `${final}.${process.pid}.${Date.now()}.partial`;
  await copyFile(file, partial);
  // rename is atomic, so a concurrent scan never reads a half-written cache entry.
  await rename(partial, final);
}

export async function fetchNpm(
  target: Extract<ScanTarget, { kind: 'npm' }>,
  options: SourceOptions = {},
): Promise<Workspace> {
  const settings = loadNpmSettings({ cwd: options.cwd });
  const registry = withTrailingSlash(options.npmRegistry ?? registryFor(target.name, settings));
  const packumentUrl = `${registry}${target.name.replace('/', '%2f')}`;
  const auth = authorizationFor(packumentUrl, settings);
  const result = await getJson<Packument>({
    input: target.input,
    url: packumentUrl,
    headers: {
      accept: 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*',
      ...(auth ? { authorization: auth } : {}),
    },
    signal: options.signal,
  });
  if (result.status === 'not-found') {
    throw new TargetError(target.input, `package not found in ${registry}`);
  }
  const packument = result.data;
  const version = pickVersion(packument, target.spec);
  const manifest = version === undefined ? undefined : packument.versions?.[version];
  if (version === undefined || manifest === undefined) {
    const latest = packument['dist-tags']?.latest;
    throw new TargetError(
      target.input,
      `no version matching ${target.spec || 'latest'}${latest ? ` (latest is ${latest})` : ''}`,
    );
  }
  const tarballUrl = manifest.dist?.tarball;
  if (!tarballUrl) throw new TargetError(target.input, `${target.name}@${version} has no tarball in ${registry}`);
  const expected =
    parseIntegrity(manifest.dist?.integrity ?? '') ??
    (manifest.dist?.shasum ? { algorithm: 'sha1' as const, hex: manifest.dist.shasum.toLowerCase() } : undefined);
  if (!expected) throw new TargetError(target.input, `${target.name}@${version} has no published checksum`);

  const limits = { ...DEFAULT_ARCHIVE_LIMITS, ...options.limits };
  return withTempDir(options.tempRoot, async (dir) => {
    let tarball = await cachedTarball(options.cacheDir, expected);
    if (!tarball) {
      tarball = path.join(dir, 'package.tgz');
      const tarballAuth = authorizationFor(tarballUrl, settings);
      const download = await downloadFile({
        input: target.input,
        url: tarballUrl,
        file: tarball,
        maxBytes: limits.maxBytes,
        headers: tarballAuth ? { authorization: tarballAuth } : {},
        signal: options.signal,
      });
      if (download.digests[expected.algorithm] !== expected.hex) {
        throw new TargetError(
          target.input,
          `integrity check failed for ${target.name}@${version}: expected ${digestToIntegrity(expected)}, got ${digestToIntegrity({ algorithm: expected.algorithm, hex: download.digests[expected.algorithm] ?? '' })}`,
        );
      }
      if (options.cacheDir) await storeInCache(options.cacheDir, expected, tarball);
    }
    const root = path.join(dir, 'package');
    await extractTarGz(tarball, root, { limits, strip: 1, signal: options.signal }).catch((error: unknown) => {
      throw asTargetError(target.input, error);
    });
    const metadata: PackageMetadata = {
      registry: 'npm',
      tarballUrl,
      integrity: manifest.dist?.integrity ?? digestToIntegrity(expected),
      ...optional('publishedAt', packument.time?.[version]),
      ...optional('firstPublishedAt', packument.time?.created),
      ...(packument.versions ? { versionCount: Object.keys(packument.versions).length } : {}),
      ...optional('repository', typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url),
      ...optional('maintainers', maintainerNames(packument.maintainers ?? manifest.maintainers)),
    };
    return {
      target,
      root,
      name: packument.name ?? target.name,
      version,
      metadata,
      dispose: () => removeTempDir(dir),
    };
  });
}

/** Spreads `{ key: value }` only when value is defined (exactOptionalPropertyTypes-friendly metadata). */
function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}
