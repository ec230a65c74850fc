// Every source unpacks or clones into its own `svc-scan-*` directory. The live ones are tracked here so the CLI can
// remove them when the user interrupts a scan (SIGINT skips the sources' own `finally` blocks).

import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const liveTempDirs = new Set<string>();

export async function createTempDir(tempRoot?: string): Promise<string> {
  const dir = await mkdtemp(path.join(tempRoot ?? os.tmpdir(), 'svc-scan-'));
  liveTempDirs.add(dir);
  return dir;
}

export async function removeTempDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  liveTempDirs.delete(dir);
}

/** The temp dirs of scans still in progress (for diagnostics and tests). */
export function liveTempDirList(): string[] {
  return [...liveTempDirs];
}

export async function removeAllTempDirs(): Promise<void> {
  await Promise.allSettled([...liveTempDirs].map((dir) => removeTempDir(dir)));
}

/** For `process.on('exit')`, where nothing asynchronous runs any more. */
export function removeAllTempDirsSync(): void {
  for (const dir of liveTempDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
      liveTempDirs.delete(dir);
    } catch {
      // Best effort on the way out: a dir we cannot remove now is left for the OS's temp cleaner.
    }
  }
}

/**
 * Runs `work` with a fresh temp dir and removes the dir if `work` throws; on success the dir belongs to the caller
 * (the Workspace's dispose removes it).
 */
export async function withTempDir<T>(tempRoot: string | undefined, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await createTempDir(tempRoot);
  try {
    return await work(dir);
  } catch (error) {
    await removeTempDir(dir);
    throw error;
  }
}
