import { existsSync } from 'node:fs';
import { createLockfile, discoverConfigs, formatLockfile, LOCKFILE_NAME, pinReport, readLockfile, scanInputs, serverKey, visibleLine } from '@svc/core';
import type { LockEntry, Lockfile } from '@svc/core';
import { EXIT } from '../exit-codes.js';
import type { CommandIo } from '../terminal.js';
import { writeFileAtomic } from '../write-atomic.js';

export interface PinCommandOptions {
  lockfile: string;
  discover?: boolean;
  registry?: string;
  indexUrl?: string;
  quiet?: boolean;
}

/**
 * `svc pin`: scans the servers (statically, fast mode, as `svc scan` does) and records what each shows the model in
 * mcp.lock, so `svc scan` reports later changes (rule tool-drift). Without targets it pins the servers of the MCP
 * client configs found on this machine. Servers pinned now replace their entries; the lock's other entries stay.
 * A target that could not be scanned is not pinned (an empty entry would pass every later change as "new"): it is
 * named on stderr and the exit code is 2, while the servers that were scanned are still written.
 */
export async function pinCommand(targets: string[], options: PinCommandOptions, io: CommandIo): Promise<number> {
  let previous: Lockfile | undefined;
  try {
    // An existing lock that does not read is an error, never overwritten: it may hold entries the user needs.
    if (existsSync(options.lockfile)) previous = await readLockfile(options.lockfile);
  } catch (error) {
    io.stderr.write(`svc: ${visibleLine((error as Error).message)}\n`);
    return EXIT.error;
  }

  const inputs = [...targets];
  if (targets.length === 0 || options.discover) {
    const configs = await discoverConfigs();
    for (const config of configs) {
      if (!options.quiet) io.stderr.write(`svc: found ${config.path} (${config.client})\n`);
      inputs.push(config.path);
    }
  }
  if (inputs.length === 0) {
    io.stderr.write('svc: nothing to pin: no MCP client configuration found on this machine; give a target\n');
    return EXIT.error;
  }

  const run = await scanInputs(inputs, {
    mode: 'fast',
    signal: io.signal,
    clock: io.clock,
    source: { npmRegistry: options.registry, pypiIndex: options.indexUrl },
  });
  const entries = new Map<string, LockEntry>();
  const skipped: string[] = [];
  for (const failure of run.errors) skipped.push(`${failure.input}: ${failure.message}`);
  for (const report of run.reports) {
    if (report.coverage.status === 'not-scanned') {
      skipped.push(`${serverKey(report.target)}: not scanned: ${report.coverage.reasons.join('; ')}`);
      continue;
    }
    entries.set(serverKey(report.target), pinReport(report, io.clock()));
  }
  for (const line of skipped) io.stderr.write(`svc: not pinned: ${visibleLine(line)}\n`);
  if (entries.size === 0) {
    io.stderr.write(`svc: ${options.lockfile} not written: no server could be pinned\n`);
    return EXIT.error;
  }

  try {
    await writeFileAtomic(options.lockfile, formatLockfile(createLockfile(entries, previous)));
  } catch (error) {
    io.stderr.write(`svc: cannot write ${options.lockfile}: ${(error as Error).message}\n`);
    return EXIT.error;
  }
  if (!options.quiet) {
    for (const [key, entry] of entries) {
      const version = entry.target.version ? `@${entry.target.version}` : '';
      io.stderr.write(`svc: pinned ${visibleLine(key)} (${visibleLine(entry.target.name + version)}): ${itemCount(entry)}\n`);
    }
  }
  const kept = previous ? Object.keys(previous.servers).filter((key) => !entries.has(key)).length : 0;
  io.stderr.write(
    `svc: wrote ${entries.size} server${entries.size === 1 ? '' : 's'} to ${options.lockfile}${kept > 0 ? ` (${kept} more kept from the existing lock)` : ''}\n`,
  );
  return skipped.length > 0 ? EXIT.error : EXIT.clean;
}

function itemCount(entry: LockEntry): string {
  const counts = new Map<string, number>();
  for (const item of Object.values(entry.items)) counts.set(item.definition.kind, (counts.get(item.definition.kind) ?? 0) + 1);
  if (counts.size === 0) return 'no tools found';
  return [...counts].map(([kind, count]) => `${count} ${kind}${count === 1 || kind === 'instructions' ? '' : 's'}`).join(', ');
}

/**
 * The lock `svc scan` compares with: `--lockfile <file>` (must exist), `--no-lockfile` (none), or ./mcp.lock when it
 * exists. A lock that does not read throws a LockfileError naming the file and the problem.
 */
export async function scanLockfile(lockfile: string | false | undefined): Promise<Lockfile | undefined> {
  if (lockfile === false) return undefined;
  if (lockfile === undefined && !existsSync(LOCKFILE_NAME)) return undefined;
  return readLockfile(lockfile ?? LOCKFILE_NAME);
}
