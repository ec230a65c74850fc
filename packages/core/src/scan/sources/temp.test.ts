import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTempDir, liveTempDirList, removeAllTempDirs, removeAllTempDirsSync, withTempDir } from './temp.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'svc-temp-test-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('scan temp dirs', () => {
  it('creates svc-scan-* dirs under tempRoot and removes every live one on demand', async () => {
    const a = await createTempDir(root);
    const b = await createTempDir(root);
    await writeFile(path.join(a, 'file'), 'x');
    expect(path.basename(a)).toMatch(/^svc-scan-/);
    expect(path.dirname(a)).toBe(root);
    expect(liveTempDirList()).toEqual(expect.arrayContaining([a, b]));
    await removeAllTempDirs();
    expect(existsSync(a) || existsSync(b)).toBe(false);
    expect(liveTempDirList()).not.toContain(a);
  });

  it('removes synchronously for exit handlers', async () => {
    const dir = await createTempDir(root);
    removeAllTempDirsSync();
    expect(existsSync(dir)).toBe(false);
  });

  it('withTempDir removes the dir when the work fails and keeps it when it succeeds', async () => {
    let failedDir = '';
    await expect(
      withTempDir(root, async (dir) => {
        failedDir = dir;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(failedDir).not.toBe('');
    expect(existsSync(failedDir)).toBe(false);
    const kept = await withTempDir(root, async (dir) => dir);
    expect(existsSync(kept)).toBe(true);
  });
});
