// The published packages as users install them: `npm pack` of each workspace, `npm install -g` of the tarballs into
// an empty prefix, and the installed `svc` and `svcd` run from a folder outside the repository.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLEAN_ENV, startSvcdProcess } from '../../daemon/src/test/process.js';
import { ensureBuilt, REPO } from './test/build.js';

const run = promisify(execFile);
const manifest = (workspace: string) => JSON.parse(readFileSync(join(REPO, `packages/${workspace}/package.json`), 'utf8')) as {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};

describe('published packages', () => {
  it('declare every runtime dependency of the core they bundle, at the same range, and do not depend on @svc/core', () => {
    const core = manifest('core').dependencies ?? {};
    for (const workspace of ['cli', 'daemon']) {
      const { dependencies = {}, devDependencies = {} } = manifest(workspace);
      expect(dependencies['@svc/core'], workspace).toBeUndefined();
      expect(devDependencies['@svc/core'], workspace).toBe('0.1.0');
      for (const [name, range] of Object.entries(core)) expect([workspace, name, dependencies[name]]).toEqual([workspace, name, range]);
    }
  });
});

// Installing needs the npm registry (the local npm cache answers most of it): a network failure skips the test and
// says so, anything else fails it. A TLS certificate the registry's chain cannot prove at this clock counts as a
// network failure: CI also runs the suite under a clock a year ahead.
const NETWORK_ERROR = /ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNREFUSED|ECONNRESET|CERT_|certificate|network/i;

describe('npm install -g of the packed tarballs', () => {
  let work: string;
  let prefix: string;
  let installError: string | undefined;

  beforeAll(async () => {
    ensureBuilt(['cli', 'daemon']);
    work = await realpath(await mkdtemp(join(tmpdir(), 'svc-install-')));
    prefix = join(work, 'prefix');
    const packs = join(work, 'packs');
    await mkdir(packs);
    for (const workspace of ['cli', 'daemon']) {
      await run('npm', ['pack', '--workspace', `packages/${workspace}`, '--pack-destination', packs, '--ignore-scripts', '--silent'], { cwd: REPO });
    }
    const tarballs = (await readdir(packs)).map((name) => join(packs, name));
    expect(tarballs.map((file) => file.slice(packs.length + 1)).sort()).toEqual(['svc-cli-0.1.0.tgz', 'svc-daemon-0.1.0.tgz']);
    try {
      // From an empty folder, so npm sees no workspace, lockfile or override of this repository.
      await run('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', ...tarballs], {
        cwd: work,
        env: { ...CLEAN_ENV, npm_config_loglevel: 'error' },
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (error) {
      const { stderr = '', message } = error as { stderr?: string; message: string };
      if (!NETWORK_ERROR.test(stderr)) throw error;
      installError = `${message}\n${stderr}`.split('\n').slice(0, 4).join(' ');
    }
  }, 900_000);

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('installs svc, which scans a server from outside the repository', async (context) => {
    if (installError !== undefined) context.skip(`npm registry unreachable: ${installError}`);
    const server = join(work, 'server');
    await cp(join(REPO, 'fixtures/servers/poisoned-notes-ts'), server, { recursive: true });
    const scan = await run(join(prefix, 'bin/svc'), ['scan', server, '--format', 'json', '--quiet', '--fail-on', 'never'], {
      cwd: work,
      env: { ...CLEAN_ENV, HOME: work },
    });
    const report = JSON.parse(scan.stdout) as { reports: Array<{ tools: unknown[]; findings: Array<{ ruleId: string }> }> };
    expect(report.reports[0]!.tools.length).toBeGreaterThan(0);
    expect(report.reports[0]!.findings.map((finding) => finding.ruleId)).toContain('tool-poisoning-sensitive-access');
    // The installed tree holds no copy of the repository's sources: the core is inside the tarball's own dist.
    const installed = join(prefix, 'lib/node_modules/@svc');
    expect((await readdir(installed)).sort()).toEqual(['cli', 'daemon']);
  }, 120_000);

  it('installs svcd, which starts on a free port and answers', async (context) => {
    if (installError !== undefined) context.skip(`npm registry unreachable: ${installError}`);
    const daemon = await startSvcdProcess({ ...CLEAN_ENV, HOME: work, SVC_DATA_DIR: join(work, 'data') }, join(prefix, 'bin/svcd'));
    try {
      const health = await fetch(`${daemon.url}/api/v1/stats`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ scans_completed: 0 });
    } finally {
      await daemon.stop();
    }
  }, 120_000);
});
