import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { base62 } from '../rules/support/secret-formats.js';
import { scanWorkspace } from './engine.js';
import type { ScanReport } from './model.js';

const servers = fileURLToPath(new URL('../../../../fixtures/servers/', import.meta.url));
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

async function scan(dir: string): Promise<ScanReport> {
  return scanWorkspace({ target: { kind: 'directory', input: dir, path: dir }, root: dir, name: path.basename(dir), dispose: async () => {} });
}

/** A copy of a fixture server to change one thing in. */
function copyOf(fixture: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-scope-'));
  temps.push(dir);
  cpSync(path.join(servers, fixture), dir, { recursive: true });
  return dir;
}

const scoped = (report: ScanReport, reason: string) => (report.scopedOut ?? []).filter((file) => file.reason === reason).map((file) => file.path);
const findingsAt = (report: ScanReport) => report.findings.map((finding) => `${finding.ruleId} ${finding.location?.file}:${finding.location?.line}`);

describe('browser build output', () => {
  it('is listed as scoped out, and its in-browser demo tools are not taken for server tools', async () => {
    const report = await scan(path.join(servers, 'clean-inspector-web-client'));
    expect(scoped(report, 'browser-build')).toEqual(['dist/client/assets/index-3f9a2c1d.js', 'dist/client/assets/playground-b81c04e2.js']);
    expect(report.tools.map((tool) => tool.name).sort()).toEqual(['client_version', 'list_transports']);
    expect(report.findings).toEqual([]);
  });

  it('is still read by the text rules: a token in a browser chunk is reported', async () => {
    const dir = copyOf('clean-inspector-web-client');
    const chunk = path.join(dir, 'dist/client/assets/index-3f9a2c1d.js');
    const random = 'q7Lm2Xv9Rt4Kp8Wz3Nc6Hb1Yd5Fg0Js'.slice(0, 30);
    writeFileSync(chunk, `${readFileSync(chunk, 'utf8')}const t="${['ghp', random + base62(crc32(random), 6)].join('_')}";\n`);
    const report = await scan(dir);
    expect(findingsAt(report)).toEqual(['hardcoded-secret dist/client/assets/index-3f9a2c1d.js:8']);
  });

  it('stays server code when a package entry point, an import from outside or a Node built-in says so', async () => {
    // The fixture's web folder holds the server (bin) and a script that loads child_process: analysed.
    const poisoned = await scan(path.join(servers, 'poisoned-server-in-web-folder'));
    expect(scoped(poisoned, 'browser-build')).toEqual([]);
    expect(findingsAt(poisoned)).toContain('command-injection app/probe.js:10');

    // Entry point only: the web client's chunk becomes the bin.
    const entry = copyOf('clean-inspector-web-client');
    const manifest = JSON.parse(readFileSync(path.join(entry, 'package.json'), 'utf8'));
    manifest.bin['mcp-dev-inspector'] = 'dist/client/assets/playground-b81c04e2.js';
    writeFileSync(path.join(entry, 'package.json'), JSON.stringify(manifest));
    expect(scoped(await scan(entry), 'browser-build')).toEqual([]);

    // Import only: the server imports a module from the web folder.
    const imported = copyOf('clean-inspector-web-client');
    const serverFile = path.join(imported, 'dist/server/index.js');
    writeFileSync(serverFile, readFileSync(serverFile, 'utf8').replace('import { z } from "zod";', 'import { z } from "zod";\nimport "../client/assets/playground-b81c04e2.js";'));
    expect(scoped(await scan(imported), 'browser-build')).toEqual([]);

    // Built-in only: one chunk of the web folder reads files.
    const builtin = copyOf('clean-inspector-web-client');
    writeFileSync(path.join(builtin, 'dist/client/assets/fs-shim-0a1b2c3d.js'), 'import{readFileSync as r}from"node:fs";export const read=p=>r(p,"utf8");\n');
    const report = await scan(builtin);
    expect(scoped(report, 'browser-build')).toEqual([]);
    expect(findingsAt(report)).toContain('code-injection dist/client/assets/playground-b81c04e2.js:3');
  });
});

describe('dual CommonJS/ESM builds', () => {
  it('analyse the ESM copy once and list the CommonJS twins', async () => {
    const report = await scan(path.join(servers, 'poisoned-dual-build'));
    expect(scoped(report, 'dual-build-twin')).toEqual(['dist/cjs/archive.js', 'dist/cjs/index.js']);
    expect(scoped(report, 'declaration')).toEqual(['dist/cjs/index.d.ts', 'dist/esm/index.d.ts']);
    expect(findingsAt(report)).toEqual(['command-injection dist/esm/archive.js:14']);
    expect(report.tools.map((tool) => `${tool.name} ${tool.location.file}`)).toEqual(['pack_folder dist/esm/index.js']);
  });

  it('analyse a CommonJS copy that does more than its ESM copy', async () => {
    const report = await scan(path.join(servers, 'poisoned-dual-build-diverging'));
    expect(scoped(report, 'dual-build-twin')).toEqual(['dist/cjs/archive.js']);
    expect(findingsAt(report).sort()).toEqual(['command-injection dist/cjs/index.js:18', 'command-injection dist/esm/archive.js:14']);
  });

  it('pair hashed chunks of two bundler outputs by their content, not by name', async () => {
    const dir = copyOf('poisoned-dual-build');
    // A rolldown-style layout: dist/archive-<hash>.js and dist/archive-<other hash>.cjs.
    cpSync(path.join(dir, 'dist/esm/archive.js'), path.join(dir, 'dist/archive-Dq3x_9Lk.js'));
    cpSync(path.join(dir, 'dist/cjs/archive.js'), path.join(dir, 'dist/archive-B7mN2pQr.cjs'));
    cpSync(path.join(dir, 'dist/cjs/index.js'), path.join(dir, 'dist/index-Zk81aa0W.cjs'));
    const report = await scan(dir);
    expect(scoped(report, 'dual-build-twin')).toEqual(['dist/archive-B7mN2pQr.cjs', 'dist/cjs/archive.js', 'dist/cjs/index.js']);
    // index-*.cjs has no ESM chunk of its name: analysed.
    expect((report.scopedOut ?? []).map((file) => file.path)).not.toContain('dist/index-Zk81aa0W.cjs');
  });
});
