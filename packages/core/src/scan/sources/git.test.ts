import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchTarget, parseTarget, TargetError } from '../target.js';
import { firstGitError, repositoryName } from './git.js';
import { clonePids, processExists, startStallingGitServer, waitFor } from './git-server-testing.js';

let work: string;
let bareUrl: string;
let mainCommit: string;
let devCommit: string;
let firstCommit: string;
let tempRoot: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'svc-git-test-'));
  const bare = path.join(work, 'server.git');
  const source = path.join(work, 'source');
  await mkdir(source);
  git(work, 'init', '--quiet', '--bare', bare);
  git(source, 'init', '--quiet');
  await writeFile(path.join(source, 'package.json'), JSON.stringify({ name: 'git-server', version: '0.0.1' }));
  await writeFile(path.join(source, 'index.js'), 'export const v = 1;\n');
  git(source, 'add', '.');
  git(source, 'commit', '--quiet', '-m', 'first');
  firstCommit = git(source, 'rev-parse', 'HEAD');
  git(source, 'tag', 'v1');
  await writeFile(path.join(source, 'index.js'), 'export const v = 2;\n');
  git(source, 'commit', '--quiet', '-am', 'second');
  mainCommit = git(source, 'rev-parse', 'HEAD');
  git(source, 'checkout', '--quiet', '-b', 'dev');
  await writeFile(path.join(source, 'index.js'), 'export const v = 3;\n');
  git(source, 'commit', '--quiet', '-am', 'dev work');
  devCommit = git(source, 'rev-parse', 'HEAD');
  git(source, 'push', '--quiet', bare, 'main', 'dev', 'v1');
  // The bare repo allows fetching any commit by id, like GitHub does.
  git(bare, 'config', 'uploadpack.allowAnySHA1InWant', 'true');
  bareUrl = pathToFileURL(bare).href;
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

beforeEach(async () => {
  tempRoot = await mkdtemp(path.join(work, 'tmp-'));
});

describe('git source', () => {
  it('shallow-clones the default branch of a file:// bare repository and records the commit', async () => {
    const workspace = await fetchTarget(parseTarget(bareUrl), { tempRoot });
    expect(workspace.metadata).toEqual({ registry: 'git', commit: mainCommit });
    expect(workspace.version).toBe(mainCommit.slice(0, 12));
    expect(workspace.name).toBe('server');
    expect(await readFile(path.join(workspace.root, 'index.js'), 'utf8')).toBe('export const v = 2;\n');
    // Shallow: only the tip commit was fetched.
    expect(git(workspace.root, 'rev-list', '--count', 'HEAD')).toBe('1');
    await workspace.dispose();
    expect(readdirSync(tempRoot)).toEqual([]);
  });

  it('checks out a branch, a tag or a full commit id given as #ref', async () => {
    const dev = await fetchTarget(parseTarget(`git+${bareUrl}#dev`), { tempRoot });
    expect(dev.metadata?.commit).toBe(devCommit);
    await dev.dispose();
    const tag = await fetchTarget(parseTarget(`${bareUrl}#v1`), { tempRoot });
    expect(tag.metadata?.commit).toBe(firstCommit);
    await tag.dispose();
    const byId = await fetchTarget(parseTarget(`${bareUrl}#${firstCommit}`), { tempRoot });
    expect(byId.metadata?.commit).toBe(firstCommit);
    expect(await readFile(path.join(byId.root, 'index.js'), 'utf8')).toBe('export const v = 1;\n');
    await byId.dispose();
  });

  it('runs no hooks, not even ones a git template would install', async () => {
    const template = path.join(work, 'template');
    await mkdir(path.join(template, 'hooks'), { recursive: true });
    const marker = path.join(work, 'hook-ran');
    const hook = path.join(template, 'hooks', 'post-checkout');
    await writeFile(hook, `#!/bin/sh\ntouch '${marker}'\n`);
    chmodSync(hook, 0o755);
    process.env.GIT_TEMPLATE_DIR = template;
    try {
      const workspace = await fetchTarget(parseTarget(bareUrl), { tempRoot });
      await workspace.dispose();
    } finally {
      delete process.env.GIT_TEMPLATE_DIR;
    }
    expect(existsSync(marker)).toBe(false);
  });

  it("reports an unreachable host with git's own first error line and cleans up", async () => {
    const error = await fetchTarget(parseTarget('git+https://127.0.0.1:1/x.git'), { tempRoot }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetError);
    expect((error as TargetError).reason).toMatch(/^fatal: unable to access 'https:\/\/127\.0\.0\.1:1\/x\.git\/'/);
    expect(readdirSync(tempRoot)).toEqual([]);
  });

  it('reports a missing repository and a missing ref', async () => {
    const missing = pathToFileURL(path.join(work, 'nope.git')).href;
    await expect(fetchTarget(parseTarget(missing), { tempRoot })).rejects.toThrow(/fatal: .*does not appear to be a git repository/);
    await expect(fetchTarget(parseTarget(`${bareUrl}#no-such-branch`), { tempRoot })).rejects.toThrow(/no-such-branch/);
    expect(readdirSync(tempRoot)).toEqual([]);
  });
});

describe('size limits on a checkout', () => {
  it('reads the tree\'s sizes before writing any file, and refuses a repository over a limit', async () => {
    // The shape of the attack: a tiny pack whose one file inflates far beyond the limit (here 64 KiB of zeros, 1 KiB limit).
    const source = path.join(work, 'bomb-source');
    await mkdir(source);
    git(source, 'init', '--quiet');
    await writeFile(path.join(source, 'zeros.bin'), Buffer.alloc(64 * 1024));
    await writeFile(path.join(source, 'index.js'), 'export {};\n');
    git(source, 'add', '.');
    git(source, 'commit', '--quiet', '-m', 'bomb');
    const url = pathToFileURL(source).href;
    const error = await fetchTarget(parseTarget(url), { tempRoot, limits: { maxFileBytes: 1024 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetError);
    expect((error as TargetError).reason).toBe("repository is over the scan's limits: zeros.bin is 65536 bytes, over the 1024-byte file limit");
    expect(readdirSync(tempRoot)).toEqual([]);
    const many = await fetchTarget(parseTarget(url), { tempRoot, limits: { maxFiles: 1 } }).catch((e: unknown) => e);
    expect((many as TargetError).reason).toBe("repository is over the scan's limits: more than 1 files");
    // Within the limits the same repository is checked out as usual.
    const workspace = await fetchTarget(parseTarget(url), { tempRoot });
    expect(readdirSync(workspace.root).sort()).toEqual(['.git', 'index.js', 'zeros.bin']);
    await workspace.dispose();
  });
});

describe('a network policy (the daemon\'s)', () => {
  it('lets git use only the allowed transports', async () => {
    const error = await fetchTarget(parseTarget(bareUrl), { tempRoot, git: { protocols: ['https'] } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetError);
    expect((error as TargetError).reason).toMatch(/transport 'file' not allowed/);
    expect(readdirSync(tempRoot)).toEqual([]);
  });

  it('connects to the pinned address whatever the host name resolves to', async () => {
    // A host name that resolves nowhere: the clone can only reach the listener through the pin.
    const requests: string[] = [];
    const server = createServer((req, res) => {
      requests.push(`${req.headers.host} ${req.url}`);
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const target = parseTarget(`git+http://repo.svc-test.invalid:${port}/team/server.git`);
      const error = await fetchTarget(target, {
        tempRoot,
        git: { protocols: ['http'], pin: { host: 'repo.svc-test.invalid', port, address: '127.0.0.1' } },
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TargetError);
      expect(requests).toEqual([`repo.svc-test.invalid:${port} /team/server.git/info/refs?service=git-upload-pack`]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('stopping a clone', () => {
  it('kills git and its git-remote-http helper when the scan is aborted (Ctrl-C in the CLI)', async () => {
    const server = await startStallingGitServer();
    try {
      const url = `${server.url}/stalled.git`;
      const controller = new AbortController();
      const fetching = fetchTarget(parseTarget(`git+${url}`), { tempRoot, signal: controller.signal });
      const settled = fetching.catch((error: unknown) => error);
      await server.requested;
      const pids = await clonePids(url);
      expect(pids.length).toBeGreaterThanOrEqual(2);
      controller.abort(new Error('interrupted'));
      expect(await settled).toMatchObject({ name: 'AbortError' });
      // git itself is reaped by the time the fetch settles; its helper, reparented, by init soon after.
      await waitFor(() => !pids.some(processExists));
      expect(pids.filter(processExists)).toEqual([]);
      expect(readdirSync(tempRoot)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe('git helpers', () => {
  it('names repositories and picks the first error line', () => {
    expect(repositoryName('https://github.com/owner/repo.git')).toBe('owner/repo');
    expect(repositoryName('ssh://git@host.example/team/server.git')).toBe('team/server');
    expect(repositoryName('git@github.com:owner/repo.git')).toBe('owner/repo');
    expect(firstGitError("Cloning into 'x'...\nfatal: repository 'x' not found\nerror: more\n")).toBe("fatal: repository 'x' not found");
  });
});
