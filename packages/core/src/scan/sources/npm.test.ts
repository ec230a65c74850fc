import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchTarget, parseTarget, TargetError } from '../target.js';
import { authorizationFor, loadNpmSettings, pickVersion, registryFor } from './npm.js';
import { buildTarGz, sriSha512 } from './testing.js';

// A stand-in npm registry on 127.0.0.1: a packument with three versions and their tarballs, one of them published
// with a wrong integrity.
let server: Server;
let registry: string;
let requests: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
let work: string;
let tempRoot: string;

function tarballFor(version: string): Buffer {
  return buildTarGz([
    { name: 'package/package.json', content: JSON.stringify({ name: '@acme/mcp-tools', version }) },
    { name: 'package/dist/index.js', content: `export const version = ${JSON.stringify(version)};\n` },
  ]);
}

const tarballs = new Map(['1.0.0', '1.2.0', '2.0.0-beta.1', '1.3.0'].map((v) => [v, tarballFor(v)]));
// Correctly published, hostile content: a path that climbs out of the unpack folder.
tarballs.set('6.6.6', buildTarGz([{ name: 'package/../../../../evil.js', content: 'pwned' }]));

function packument(base: string): unknown {
  const version = (v: string, integrity?: string): unknown => ({
    name: '@acme/mcp-tools',
    version: v,
    dist: {
      tarball: `${base}/@acme/mcp-tools/-/mcp-tools-${v}.tgz`,
      integrity: integrity ?? sriSha512(tarballs.get(v) ?? Buffer.alloc(0)),
    },
    repository: { type: 'git', url: 'git+https://github.com/acme/mcp-tools.git' },
  });
  return {
    name: '@acme/mcp-tools',
    'dist-tags': { latest: '1.2.0', beta: '2.0.0-beta.1' },
    versions: {
      '1.0.0': version('1.0.0'),
      '1.2.0': version('1.2.0'),
      '2.0.0-beta.1': version('2.0.0-beta.1'),
      // Published with the integrity of another tarball: the download must be refused.
      '1.3.0': version('1.3.0', sriSha512(Buffer.from('something else'))),
      '6.6.6': version('6.6.6'),
    },
    time: { created: '2024-11-30T10:00:00.000Z', '1.2.0': '2025-01-02T03:04:05.000Z' },
    maintainers: [{ name: 'acme-bot', email: 'bot@acme.test' }],
  };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    const url = req.url ?? '';
    if (url === '/@acme%2fmcp-tools') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(packument(registry.replace(/\/$/, ''))));
      return;
    }
    if (url === '/slow-server') {
      const tgz = `${registry}slow-server/-/slow-server-1.0.0.tgz`;
      res.end(JSON.stringify({ name: 'slow-server', 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': { name: 'slow-server', version: '1.0.0', dist: { tarball: tgz, integrity: sriSha512(Buffer.from('x')) } } } }));
      return;
    }
    // Sends the first bytes of the tarball and then stalls, like a registry that hangs mid-download.
    if (url.startsWith('/slow-server/-/')) {
      res.write(Buffer.alloc(100));
      return;
    }
    const tarball = /^\/@acme\/mcp-tools\/-\/mcp-tools-(.+)\.tgz$/.exec(url);
    const body = tarball?.[1] ? tarballs.get(tarball[1]) : undefined;
    if (body) {
      res.setHeader('content-type', 'application/octet-stream');
      res.end(body);
      return;
    }
    res.statusCode = 404;
    res.end(JSON.stringify({ error: 'Not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  work = await mkdtemp(path.join(os.tmpdir(), 'svc-npm-test-'));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(work, { recursive: true, force: true });
});

beforeEach(async () => {
  requests = [];
  tempRoot = await mkdtemp(path.join(work, 'tmp-'));
});

describe('npm source against a stand-in registry', () => {
  it('resolves a range, verifies the tarball and unpacks it without the package/ prefix', async () => {
    const workspace = await fetchTarget(parseTarget('npm:@acme/mcp-tools@^1.0.0'), { npmRegistry: registry, tempRoot });
    expect(workspace).toMatchObject({ name: '@acme/mcp-tools', version: '1.2.0' });
    expect(workspace.metadata).toMatchObject({
      registry: 'npm',
      publishedAt: '2025-01-02T03:04:05.000Z',
      // What the typosquat signals read: the first release, the history's length and the repository.
      firstPublishedAt: '2024-11-30T10:00:00.000Z',
      versionCount: 5,
      repository: 'git+https://github.com/acme/mcp-tools.git',
      maintainers: ['acme-bot'],
      integrity: sriSha512(tarballs.get('1.2.0') ?? Buffer.alloc(0)),
    });
    expect(await readFile(path.join(workspace.root, 'dist/index.js'), 'utf8')).toContain('"1.2.0"');
    expect(requests[0]?.headers.accept).toContain('application/vnd.npm.install-v1+json');
    expect(path.dirname(path.dirname(workspace.root))).toBe(tempRoot);
    expect(path.basename(path.dirname(workspace.root))).toMatch(/^svc-scan-/);
    await workspace.dispose();
    expect(readdirSync(tempRoot)).toEqual([]);
  });

  it('resolves dist-tags and exact versions', async () => {
    const beta = await fetchTarget(parseTarget('npm:@acme/mcp-tools@beta'), { npmRegistry: registry, tempRoot });
    expect(beta.version).toBe('2.0.0-beta.1');
    await beta.dispose();
    const exact = await fetchTarget(parseTarget('@acme/mcp-tools@1.0.0'), { npmRegistry: registry, tempRoot });
    expect(exact.version).toBe('1.0.0');
    await exact.dispose();
  });

  it('says which registry lacks an unknown package', async () => {
    const error = await fetchTarget(parseTarget('npm:@acme/nothing-here'), { npmRegistry: registry, tempRoot }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetError);
    expect((error as TargetError).reason).toBe(`package not found in ${registry}`);
  });

  it('says what the latest version is when no version matches', async () => {
    await expect(fetchTarget(parseTarget('npm:@acme/mcp-tools@^9'), { npmRegistry: registry, tempRoot })).rejects.toThrow(
      'npm:@acme/mcp-tools@^9: no version matching ^9 (latest is 1.2.0)',
    );
    await expect(fetchTarget(parseTarget('npm:@acme/mcp-tools@nightly'), { npmRegistry: registry, tempRoot })).rejects.toThrow(
      /no version matching nightly/,
    );
  });

  it('refuses a tarball whose integrity does not match and leaves no temp dir behind', async () => {
    await expect(fetchTarget(parseTarget('npm:@acme/mcp-tools@1.3.0'), { npmRegistry: registry, tempRoot })).rejects.toThrow(
      /integrity check failed for @acme\/mcp-tools@1\.3\.0/,
    );
    expect(readdirSync(tempRoot)).toEqual([]);
  });

  it('reports a hostile tarball as a TargetError and writes nothing outside its temp dir', async () => {
    const error = await fetchTarget(parseTarget('npm:@acme/mcp-tools@6.6.6'), { npmRegistry: registry, tempRoot }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetError);
    expect((error as TargetError).reason).toMatch(/^refused archive: entry escapes the destination/);
    expect(readdirSync(tempRoot)).toEqual([]);
    expect(readdirSync(work).filter((name) => name === 'evil.js')).toEqual([]);
    expect(existsSync(path.join(path.dirname(work), 'evil.js'))).toBe(false);
  });

  it('reuses tarballs from cacheDir instead of downloading again', async () => {
    const cacheDir = path.join(work, 'cache');
    const first = await fetchTarget(parseTarget('npm:@acme/mcp-tools@1.0.0'), { npmRegistry: registry, tempRoot, cacheDir });
    await first.dispose();
    const downloadsBefore = requests.filter((r) => r.url.endsWith('.tgz')).length;
    const second = await fetchTarget(parseTarget('npm:@acme/mcp-tools@1.0.0'), { npmRegistry: registry, tempRoot, cacheDir });
    expect(await readFile(path.join(second.root, 'package.json'), 'utf8')).toContain('1.0.0');
    await second.dispose();
    expect(downloadsBefore).toBe(1);
    expect(requests.filter((r) => r.url.endsWith('.tgz')).length).toBe(1);
    // A tampered cache entry is detected and replaced by a fresh download.
    const [entry] = readdirSync(path.join(cacheDir, 'npm'));
    await writeFile(path.join(cacheDir, 'npm', entry ?? ''), 'tampered');
    const third = await fetchTarget(parseTarget('npm:@acme/mcp-tools@1.0.0'), { npmRegistry: registry, tempRoot, cacheDir });
    await third.dispose();
    expect(requests.filter((r) => r.url.endsWith('.tgz')).length).toBe(2);
  });

  it('sends the .npmrc token for this registry as a Bearer header', async () => {
    const project = await mkdtemp(path.join(work, 'project-'));
    const host = new URL(registry).host;
    await writeFile(path.join(project, '.npmrc'), `//${host}/:_authToken=\${SVC_TEST_NPM_TOKEN}\n`);
    process.env.SVC_TEST_NPM_TOKEN = 'test-token-123';
    try {
      const workspace = await fetchTarget(parseTarget('npm:@acme/mcp-tools@1.0.0'), { npmRegistry: registry, tempRoot, cwd: project });
      await workspace.dispose();
    } finally {
      delete process.env.SVC_TEST_NPM_TOKEN;
    }
    expect(requests.map((r) => r.headers.authorization)).toEqual(['Bearer test-token-123', 'Bearer test-token-123']);
  });

  it('stops on abort mid-download and removes its temp dir', async () => {
    const controller = new AbortController();
    const pending = fetchTarget(parseTarget('npm:slow-server'), { npmRegistry: registry, tempRoot, signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    const error = await pending.catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(readdirSync(tempRoot)).toEqual([]);
  });

  it('reports an unreachable registry as a TargetError', async () => {
    await expect(
      fetchTarget(parseTarget('npm:@acme/mcp-tools'), { npmRegistry: 'http://127.0.0.1:1/', tempRoot }),
    ).rejects.toThrow(/cannot reach 127\.0\.0\.1:1/);
  });
});

describe('npm configuration', () => {
  it('picks scoped registries, env overrides and per-host credentials', async () => {
    const home = await mkdtemp(path.join(work, 'home-'));
    const project = await mkdtemp(path.join(work, 'proj-'));
    await writeFile(
      path.join(home, '.npmrc'),
      ['registry=https://user.example/npm/', '@corp:registry=https://npm.corp.example/api/npm/', '//npm.corp.example/api/npm/:_authToken=${CORP_TOKEN}'].join('\n'),
    );
    await writeFile(path.join(project, '.npmrc'), 'registry=https://project.example/\n');
    const settings = loadNpmSettings({ home, cwd: project, env: { CORP_TOKEN: 'corp-secret' } });
    expect(registryFor('left-pad', settings)).toBe('https://project.example/');
    expect(registryFor('@corp/server', settings)).toBe('https://npm.corp.example/api/npm/');
    expect(authorizationFor('https://npm.corp.example/api/npm/@corp%2fserver', settings)).toBe('Bearer corp-secret');
    expect(authorizationFor('https://npm.corp.example/other/path', settings)).toBeUndefined();
    expect(authorizationFor('https://project.example/left-pad', settings)).toBeUndefined();
    const fromEnv = loadNpmSettings({ home, cwd: project, env: { npm_config_registry: 'https://env.example/' } });
    expect(registryFor('left-pad', fromEnv)).toBe('https://env.example/');
  });

  it('picks versions like npm does', () => {
    const doc = { 'dist-tags': { latest: '1.2.0' }, versions: { '1.0.0': { version: '1.0.0' }, '1.2.0': { version: '1.2.0' }, '1.5.0-rc.1': { version: '1.5.0-rc.1' }, '2.0.0': { version: '2.0.0' } } };
    expect(pickVersion(doc, 'latest')).toBe('1.2.0');
    expect(pickVersion(doc, '^1')).toBe('1.2.0');
    expect(pickVersion(doc, '>=1.3')).toBe('2.0.0');
    expect(pickVersion(doc, '2.0.0')).toBe('2.0.0');
    expect(pickVersion(doc, '3')).toBeUndefined();
    expect(pickVersion(doc, 'constructor')).toBeUndefined();
  });
});

describe('npm source against the real registry', () => {
  it('fetches a pinned @modelcontextprotocol/server-everything (skipped when offline)', async (context) => {
    const realTemp = await mkdtemp(path.join(work, 'real-'));
    let workspace;
    try {
      workspace = await fetchTarget(parseTarget('npm:@modelcontextprotocol/server-everything@0.6.2'), {
        npmRegistry: 'https://registry.npmjs.org/',
        tempRoot: realTemp,
      });
    } catch (error) {
      if (error instanceof TargetError && /cannot reach|answered HTTP 5/.test(error.reason)) context.skip();
      throw error;
    }
    expect(workspace.version).toBe('0.6.2');
    expect(existsSync(path.join(workspace.root, 'package.json'))).toBe(true);
    expect(JSON.parse(await readFile(path.join(workspace.root, 'package.json'), 'utf8'))).toMatchObject({ name: '@modelcontextprotocol/server-everything' });
    await workspace.dispose();
    expect(readdirSync(realTemp)).toEqual([]);
  });
});
