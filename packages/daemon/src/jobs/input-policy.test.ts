import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ScanTarget } from '@svc/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkExpandedTarget, checkScanInput } from './input-policy.js';

// <base>/root        the operator's SVC_SCAN_ROOTS entry
// <base>/root/proj   a project inside it (package.json), plus a client config and a symlink out
// <base>/outside     a project next to the root, which callers must not reach
let base: string;
let root: string;
let project: string;
let outside: string;

const OUTSIDE = /must be inside SVC_SCAN_ROOTS/;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'svcd-policy-')));
  root = path.join(base, 'root');
  project = path.join(root, 'proj');
  outside = path.join(base, 'outside');
  await mkdir(project, { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(path.join(project, 'package.json'), '{"name":"proj"}');
  await writeFile(path.join(outside, 'package.json'), '{"name":"secret"}');
  await writeFile(path.join(root, 'claude_desktop_config.json'), JSON.stringify({ mcpServers: { a: { command: 'node', args: ['proj/index.js'] } } }));
  await symlink(outside, path.join(root, 'escape'));
  await symlink(project, path.join(root, 'alias'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

function accepted(input: string, roots = [root]): ScanTarget {
  const result = checkScanInput(input, roots);
  if (!result.ok) throw new Error(`refused ${input}: ${result.message}`);
  return result.target;
}

function refusal(input: string, roots = [root]): string {
  const result = checkScanInput(input, roots);
  if (result.ok) throw new Error(`accepted ${input} as ${JSON.stringify(result.target)}`);
  return result.message;
}

describe('checkScanInput: local paths', () => {
  it('accepts a directory inside a root, the root itself, and a config file inside it', () => {
    expect(accepted(project)).toEqual({ kind: 'directory', input: project, path: project });
    expect(accepted(root)).toMatchObject({ kind: 'directory', path: root });
    expect(accepted(`${project}/`)).toMatchObject({ kind: 'directory', path: project });
    const config = path.join(root, 'claude_desktop_config.json');
    expect(accepted(config)).toEqual({ kind: 'config', input: config, path: config });
  });

  it('scans the real path of a symlink that stays inside the roots', () => {
    expect(accepted(path.join(root, 'alias'))).toMatchObject({ kind: 'directory', path: project });
  });

  it('refuses a path outside the roots with the same words whether or not it exists', () => {
    const existing = refusal(outside);
    expect(existing).toMatch(OUTSIDE);
    expect(refusal(path.join(base, 'no-such-dir'))).toBe(existing);
    expect(refusal('/etc')).toBe(existing);
    expect(existing).not.toContain(outside);
  });

  it('refuses a symlink that leads out of the roots, also for files behind it that do not exist', () => {
    expect(refusal(path.join(root, 'escape'))).toMatch(OUTSIDE);
    expect(refusal(path.join(root, 'escape', 'package.json'))).toMatch(OUTSIDE);
    expect(refusal(path.join(root, 'escape', 'missing', 'deeper'))).toMatch(OUTSIDE);
  });

  it('refuses `..` that climbs out of a root', () => {
    expect(refusal(`${root}/../outside`)).toMatch(OUTSIDE);
    expect(refusal(`${project}/../../outside`)).toMatch(OUTSIDE);
    // Through a symlink the OS resolves `..` from the link's target, not lexically.
    expect(refusal(`${root}/escape/../outside`)).toMatch(OUTSIDE);
    expect(accepted(`${project}/../proj`)).toMatchObject({ kind: 'directory', path: project });
  });

  it('does not take a root prefix for a parent folder (root-other is not inside root)', async () => {
    const sibling = `${root}-other`;
    await mkdir(sibling, { recursive: true });
    expect(refusal(sibling)).toMatch(OUTSIDE);
  });

  it('says plainly when a path inside the roots does not exist', () => {
    expect(refusal(path.join(root, 'missing'))).toBe('no such directory');
  });

  it('refuses relative paths and ~, which mean nothing on the daemon', () => {
    for (const input of ['./proj', '../root', 'proj/sub', '~/src', '~', 'config.json', 'C:\\work']) {
      expect(refusal(input)).toMatch(/must be absolute and inside SVC_SCAN_ROOTS/);
    }
  });

  it('refuses every local input when no roots are configured, naming SVC_SCAN_ROOTS', () => {
    for (const input of [project, './proj', `file://${project}`, `git+file://${project}`]) {
      expect(refusal(input, [])).toMatch(/no SVC_SCAN_ROOTS/);
    }
  });
});

describe('checkScanInput: git file URLs', () => {
  it('accepts file:// and git+file:// repositories inside the roots, handing git the checked real path', () => {
    expect(accepted(`file://${project}`)).toEqual({ kind: 'git', input: `file://${project}`, url: pathToFileURL(project).href });
    expect(accepted(`git+file://${path.join(root, 'alias')}#main`)).toMatchObject({ kind: 'git', url: pathToFileURL(project).href, ref: 'main' });
  });

  it('refuses file:// URLs outside the roots, through symlinks or `..`', () => {
    expect(refusal(`file://${outside}`)).toMatch(OUTSIDE);
    expect(refusal(`git+file://${root}/escape`)).toMatch(OUTSIDE);
    // URL parsers resolve `..` lexically and git lets the OS do it through symlinks: dot segments are refused outright.
    expect(refusal(`file://${root}/escape/../outside`)).toMatch(/without a host, query or \. and \.\. segments/);
    expect(refusal(`file://${project}/..`)).toMatch(/segments/);
    expect(refusal('file:///etc')).toMatch(OUTSIDE);
  });

  it('refuses a repository inside the roots that reads objects from outside them (alternates, a .git file)', async () => {
    const borrowing = path.join(root, 'borrowing.git');
    await mkdir(path.join(borrowing, 'objects', 'info'), { recursive: true });
    await writeFile(path.join(borrowing, 'objects', 'info', 'alternates'), `${path.join(outside, 'objects')}\n`);
    expect(refusal(`file://${borrowing}`)).toMatch(/reads objects from outside SVC_SCAN_ROOTS/);
    const pointing = path.join(root, 'pointing');
    await mkdir(pointing);
    await writeFile(path.join(pointing, '.git'), `gitdir: ${outside}\n`);
    expect(refusal(`file://${pointing}`)).toMatch(/reads objects from outside SVC_SCAN_ROOTS/);
    // Alternates that stay inside the roots are git's normal object sharing.
    const sharing = path.join(root, 'sharing.git');
    await mkdir(path.join(sharing, 'objects', 'info'), { recursive: true });
    await mkdir(path.join(root, 'shared.git', 'objects'), { recursive: true });
    await writeFile(path.join(sharing, 'objects', 'info', 'alternates'), '../../shared.git/objects\n');
    expect(accepted(`file://${sharing}`)).toMatchObject({ kind: 'git' });
  });

  it('refuses relative, host-qualified and query file URLs', () => {
    for (const input of ['file:../outside', 'file:proj', 'git+file:relative', 'file://otherhost/srv/repo', `file://${project}?x=1`]) {
      expect(refusal(input)).toMatch(/file:\/\/\/absolute\/path/);
    }
  });
});

describe('checkScanInput: packages and URLs', () => {
  it('takes a bare word as an npm package, never as a folder of the daemon', () => {
    expect(accepted('express')).toEqual({ kind: 'npm', input: 'express', name: 'express', spec: 'latest' });
    expect(accepted('@scope/pkg@1.2.3')).toEqual({ kind: 'npm', input: '@scope/pkg@1.2.3', name: '@scope/pkg', spec: '1.2.3' });
    expect(accepted('express', [])).toMatchObject({ kind: 'npm' });
  });

  it('passes registry specs and remote URLs, which do not read the disk', () => {
    expect(accepted('npm:left-pad@1.3.0')).toMatchObject({ kind: 'npm', name: 'left-pad', spec: '1.3.0' });
    expect(accepted('pypi:requests==2.32.0', [])).toMatchObject({ kind: 'pypi', name: 'requests', version: '2.32.0' });
    expect(accepted('github:owner/repo#v1', [])).toMatchObject({ kind: 'git', ref: 'v1' });
    expect(accepted('git+https://example.com/r.git', [])).toMatchObject({ kind: 'git', url: 'https://example.com/r.git' });
    expect(accepted('https://mcp.example.com/mcp', [])).toMatchObject({ kind: 'remote' });
    expect(accepted('https://mcp.example.com/mcp?region=eu', [])).toMatchObject({ kind: 'remote' });
    // Credentials in the URL would be stored with the scan: they belong in bearer_token, held in memory only.
    for (const url of ['https://user:hunter2@mcp.example.com/mcp', 'https://mcp.example.com/mcp?api_key=sk-123', 'https://mcp.example.com/sse?sessionId=abc']) {
      const refused = checkScanInput(url, []);
      expect(refused.ok, url).toBe(false);
      expect(refused.ok ? '' : refused.message).toMatch(/bearer_token/);
    }
  });

  it('refuses npm specs that point at the local disk', () => {
    expect(refusal(`npm:file:${project}`)).toMatch(/not an npm registry package spec/);
    expect(refusal(`npm:${project}`)).toMatch(/not an npm registry package spec/);
    expect(refusal('npm:pkg@file:../outside')).toMatch(/not an npm registry package spec/);
    expect(refusal(`npm:git+file://${outside}`)).toMatch(/not an npm registry package spec/);
    // Without the npm: prefix a file: spec is a git file URL, and a path-like spec is a relative path.
    expect(refusal(`file:${outside}`)).toMatch(/file:\/\/\/absolute\/path/);
    expect(refusal('pkg@file:../outside')).toMatch(/must be absolute/);
  });

  it('refuses shorthands and schemes it cannot classify without touching the disk', () => {
    expect(refusal('github:../../etc', [])).toMatch(/not a scan input the daemon takes/);
    expect(refusal('localhost:8080', [])).toMatch(/not a scan input the daemon takes/);
    expect(refusal('ftp://example.com/x', [])).toMatch(/unsupported URL scheme/);
    expect(refusal('   ', [])).toBe('empty target');
  });
});

describe('checkExpandedTarget', () => {
  const origin = { configPath: path.join('/', 'cfg.json'), client: 'claude-desktop' as const, serverName: 's' };

  it('refuses a configured project outside the roots and accepts one inside', () => {
    const out: ScanTarget = { kind: 'directory', input: path.join(outside, 'index.js'), path: outside, origin };
    const result = checkExpandedTarget(out, [root]);
    expect(result).toEqual({ ok: false, message: expect.stringMatching(OUTSIDE) as unknown as string });
    const viaLink: ScanTarget = { kind: 'directory', input: 'x', path: path.join(root, 'alias'), origin };
    expect(checkExpandedTarget(viaLink, [root])).toEqual({ ok: true, target: { ...viaLink, path: project } });
  });

  it('checks file:// repositories and lets registry packages and remote endpoints through', () => {
    expect(checkExpandedTarget({ kind: 'git', input: 'g', url: `file://${outside}`, origin }, [root]).ok).toBe(false);
    expect(checkExpandedTarget({ kind: 'git', input: 'g', url: `file://${project}`, ref: 'dev', origin }, [root])).toEqual({
      ok: true,
      target: { kind: 'git', input: 'g', url: pathToFileURL(project).href, ref: 'dev', origin },
    });
    expect(checkExpandedTarget({ kind: 'git', input: 'g', url: '../repo' }, [root]).ok).toBe(false);
    expect(checkExpandedTarget({ kind: 'git', input: 'g', url: 'https://example.com/r.git' }, []).ok).toBe(true);
    expect(checkExpandedTarget({ kind: 'npm', input: 'n', name: 'x', spec: 'latest' }, []).ok).toBe(true);
    expect(checkExpandedTarget({ kind: 'remote', input: 'docker:img', url: 'docker:img' }, []).ok).toBe(true);
  });
});
