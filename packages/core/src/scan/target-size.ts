// The order a pool takes targets in. The run ends when its last target does, so the biggest start first and the small
// ones fill in behind them; a run that starts its biggest target last waits for it alone.

import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { SKIPPED_DIRECTORIES } from './inventory.js';
import type { ScanTarget } from './model.js';

/** The walk stops counting here: enough to tell a big target from a small one at a glance. */
const MAX_ENTRIES = 20_000;

/**
 * Jobs ordered for a pool: targets whose size is unknown before they are fetched (packages, repositories) first, in
 * the given order, since their download overlaps the others' work; then local folders by the bytes they hold,
 * largest first. One at a time, the order is left as it is.
 */
export function largestFirst<T extends { target: ScanTarget }>(jobs: readonly T[], parallel: boolean): T[] {
  if (!parallel) return [...jobs];
  const sizes = new Map(jobs.map((job) => [job, job.target.kind === 'directory' ? folderBytes(job.target.path) : Infinity]));
  return [...jobs].sort((a, b) => {
    const sizeA = sizes.get(a)!;
    const sizeB = sizes.get(b)!;
    return sizeA === sizeB ? 0 : sizeA === Infinity ? -1 : sizeB === Infinity ? 1 : sizeB - sizeA;
  });
}

/** Bytes of the regular files below a folder (symbolic links not followed), from at most MAX_ENTRIES entries. */
export function folderBytes(root: string): number {
  let bytes = 0;
  let entries = 0;
  const pending = [root];
  for (let dir = pending.pop(); dir !== undefined && entries < MAX_ENTRIES; dir = pending.pop()) {
    let names;
    try {
      names = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable here is the inventory's to report
    }
    for (const entry of names) {
      if (++entries > MAX_ENTRIES) break;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        // Folders the inventory never reads say nothing about the scan's size.
        if (!SKIPPED_DIRECTORIES.has(entry.name)) pending.push(full);
      } else if (entry.isFile()) {
        bytes += statSync(full, { throwIfNoEntry: false })?.size ?? 0;
      }
    }
  }
  return bytes;
}
