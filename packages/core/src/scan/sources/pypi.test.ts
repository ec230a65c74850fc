import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchTarget, parseTarget, TargetError } from '../target.js';
import { pickDistribution, pypiIndexFor } from './pypi.js';
import { buildTarGz, buildZip, sha256Hex } from './testing.js';

// A stand-in for PyPI's JSON API (https://docs.pypi.org/api/json/) with the same document shape, serving archives
// built here: weather-mcp has an sdist and a wheel per release, wheel-only-mcp only wheels, tampered-mcp a wrong digest.
let server: Server;
let index: string;
let work: string;
let tempRoot: string;
const files = new Map<string, Buffer>();

const sdist = (name: string, version: string): Buffer =>
  buildTarGz([
    { name: `${name}-${version}/pyproject.toml`, content: `[project]\nname = "${name}"\nversion = "${version}"\n` },
    { name: `${name}-${version}/src/${name.replace(/-/g, '_')}/server.py`, content: `VERSION = "${version}"\n` },
  ]);

function fileEntry(filename: string, body: Buffer, packagetype: string, digest = sha256Hex(body)): unknown {
  files.set(filename, body);
  return {
    filename,
    url: `${index}packages/${filename}`,
    packagetype,
    python_version: packagetype === 'sdist' ? 'source' : 'py3',
    digests: { sha256: digest, md5: 'unused' },
    upload_time_iso_8601: '2025-03-04T05:06:07.000000Z',
    yanked: false,
  };
}

function releases(): Record<string, Record<string, { info: unknown; urls: unknown[] }>> {
  const weather = (version: string): { info: unknown; urls: unknown[] } => ({
    info: { name: 'weather-mcp', version, author: 'Ada', maintainer: null },
    urls: [
      fileEntry(`weather_mcp-${version}-py3-none-any.whl`, buildZip([{ name: 'weather_mcp/__init__.py', content: '' }]), 'bdist_wheel'),
      fileEntry(`weather_mcp-${version}.tar.gz`, sdist('weather-mcp', version), 'sdist'),
    ],
  });
  return {
    'weather-mcp': { '1.0.0': weather('1.0.0'), '1.1.0': weather('1.1.0') },
    'wheel-only-mcp': {
      '0.3.0': {
        info: { name: 'wheel-only-mcp', version: '0.3.0' },
        urls: [
          fileEntry('wheel_only_mcp-0.3.0-cp312-cp312-manylinux_2_17_x86_64.whl', buildZip([{ name: 'native.txt', content: 'native' }]), 'bdist_wheel'),
          fileEntry('wheel_only_mcp-0.3.0-py3-none-any.whl', buildZip([{ name: 'wheel_only_mcp/tools.py', content: 'def tool(): ...\n' }]), 'bdist_wheel'),
        ],
      },
    },
    'tampered-mcp': {
      '1.0.0': {
        info: { name: 'tampered-mcp', version: '1.0.0' },
        urls: [fileEntry('tampered_mcp-1.0.0.tar.gz', sdist('tampered-mcp', '1.0.0'), 'sdist', sha256Hex(Buffer.from('other')))],
      },
    },
  };
}

beforeAll(async () => {
  let catalog: ReturnType<typeof releases> = {};
  server = createServer((req, res) => {
    const url = req.url ?? '';
    const api = /^\/pypi\/([^/]+)(?:\/([^/]+))?\/json$/.exec(url);
    if (api?.[1]) {
      const project = catalog[api[1]];
      const versions = Object.keys(project ?? {});
      const version = api[2] ?? versions.at(-1);
      const doc = version ? project?.[version] : undefined;
      if (doc) {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(doc));
        return;
      }
    }
    const file = /^\/packages\/(.+)$/.exec(url)?.[1];
    const body = file ? files.get(file) : undefined;
    if (body) {
      res.end(body);
      return;
    }
    res.statusCode = 404;
    res.end('{"message": "Not Found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  index = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  catalog = releases();
  work = await mkdtemp(path.join(os.tmpdir(), 'svc-pypi-test-'));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(work, { recursive: true, force: true });
});

beforeEach(async () => {
  tempRoot = await mkdtemp(path.join(work, 'tmp-'));
});

describe('PyPI source against a stand-in index', () => {
  it('prefers the sdist, checks its sha256 and strips the name-version/ directory', async () => {
    const workspace = await fetchTarget(parseTarget('pypi:weather-mcp==1.0.0'), { pypiIndex: index, tempRoot });
    expect(workspace).toMatchObject({ name: 'weather-mcp', version: '1.0.0' });
    expect(workspace.metadata).toMatchObject({ registry: 'pypi', publishedAt: '2025-03-04T05:06:07.000000Z', maintainers: ['Ada'] });
    expect(await readFile(path.join(workspace.root, 'src/weather_mcp/server.py'), 'utf8')).toBe('VERSION = "1.0.0"\n');
    await workspace.dispose();
    expect(readdirSync(tempRoot)).toEqual([]);
  });

  it('takes the latest release when no version is given, with a normalised name', async () => {
    const workspace = await fetchTarget(parseTarget('pypi:Weather_MCP'), { pypiIndex: index, tempRoot });
    expect(workspace.version).toBe('1.1.0');
    await workspace.dispose();
  });

  it('falls back to the pure-Python wheel when there is no sdist', async () => {
    const workspace = await fetchTarget(parseTarget('pypi:wheel-only-mcp'), { pypiIndex: index, tempRoot });
    expect(await readFile(path.join(workspace.root, 'wheel_only_mcp/tools.py'), 'utf8')).toContain('def tool');
    await workspace.dispose();
  });

  it('reports unknown packages and versions', async () => {
    const missing = await fetchTarget(parseTarget('pypi:no-such-project'), { pypiIndex: index, tempRoot }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(TargetError);
    expect((missing as TargetError).reason).toBe(`package not found in ${index}`);
    await expect(fetchTarget(parseTarget('pypi:weather-mcp==9.9'), { pypiIndex: index, tempRoot })).rejects.toThrow(
      'pypi:weather-mcp==9.9: no version matching ==9.9 (latest is 1.1.0)',
    );
  });

  it('refuses a download whose sha256 does not match and cleans up', async () => {
    await expect(fetchTarget(parseTarget('pypi:tampered-mcp'), { pypiIndex: index, tempRoot })).rejects.toThrow(/sha256 check failed/);
    expect(readdirSync(tempRoot)).toEqual([]);
  });
});

describe('PyPI index and file choice', () => {
  it('derives the index from the environment', () => {
    expect(pypiIndexFor(undefined, {})).toBe('https://pypi.org/');
    expect(pypiIndexFor(undefined, { SVC_PYPI_INDEX: 'https://mirror.example/' })).toBe('https://mirror.example/');
    expect(pypiIndexFor(undefined, { PIP_INDEX_URL: 'https://devpi.example/root/pypi/+simple/' })).toBe('https://pypi.org/');
    expect(pypiIndexFor(undefined, { PIP_INDEX_URL: 'https://pypi.corp.example/simple/' })).toBe('https://pypi.corp.example/');
    expect(pypiIndexFor('http://127.0.0.1:9', { SVC_PYPI_INDEX: 'https://ignored/' })).toBe('http://127.0.0.1:9/');
  });

  it('ranks wheels: py3 pure before platform-specific', () => {
    const wheel = (filename: string): { filename: string; url: string; packagetype: string } => ({ filename, url: filename, packagetype: 'bdist_wheel' });
    expect(
      pickDistribution([wheel('x-1-cp311-cp311-win_amd64.whl'), wheel('x-1-py2.py3-none-any.whl'), wheel('x-1-py2-none-any.whl')])?.filename,
    ).toBe('x-1-py2.py3-none-any.whl');
    expect(pickDistribution([])).toBeUndefined();
  });
});
