import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';

// Every read of a scanned tree goes through here: never through a symbolic link (which could point at /etc/passwd or
// /dev/zero), only a regular file (a FIFO would block the scan forever), and never more than the caller's limit
// (checked on the open descriptor, so a file swapped after the directory walk cannot slip past). O_NONBLOCK makes
// opening a FIFO return at once, so the type check can refuse it.
const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export interface TreeFileOptions {
  /**
   * For a file the user named (an MCP client config given as a target, often a dotfile link): the link is followed,
   * the other checks still apply. Files found inside a scanned tree never follow links.
   */
  followLinks?: boolean;
}

const flagsFor = (options: TreeFileOptions) => (options.followLinks ? FLAGS & ~constants.O_NOFOLLOW : FLAGS);

/** Why a tree file was not read: the message names the problem, the path is the caller's to add. */
export class TreeFileError extends Error {}

function refusal(error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ELOOP' ? new TreeFileError('is a symbolic link; refused') : (error as Error);
}

function checkStats(stats: { isFile(): boolean; size: number }, maxBytes: number): void {
  if (!stats.isFile()) throw new TreeFileError('is not a regular file; refused');
  if (stats.size > maxBytes) throw new TreeFileError(`is ${stats.size} bytes, over the ${maxBytes}-byte limit`);
}

/**
 * Reads one file of a scanned tree as text (a repository's svc.config.json, the manifest that names the project).
 * Undefined when the file does not exist; a TreeFileError naming the problem when it is refused.
 */
export async function readTreeFile(absPath: string, maxBytes = 1024 * 1024, options: TreeFileOptions = {}): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(absPath, flagsFor(options));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw refusal(error);
  }
  try {
    checkStats(await handle.stat(), maxBytes);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * The synchronous form, for the inventory's thousands of small reads (one promise per file costs more than the read).
 * Reads at most one byte more than the size checked, so a file that grows while it is read is refused, not read on.
 */
export function readTreeFileSync(absPath: string, maxBytes: number, options: TreeFileOptions = {}): Buffer {
  let fd: number;
  try {
    fd = openSync(absPath, flagsFor(options));
  } catch (error) {
    throw refusal(error);
  }
  try {
    const stats = fstatSync(fd);
    checkStats(stats, maxBytes);
    // One byte more than the file claims: reading it means the file grew after the check.
    const buffer = Buffer.allocUnsafe(stats.size + 1);
    let length = 0;
    for (let read = -1; read !== 0 && length < buffer.length; length += read) {
      read = readSync(fd, buffer, length, buffer.length - length, null);
    }
    if (length > stats.size) throw new TreeFileError('grew while it was read; refused');
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}
