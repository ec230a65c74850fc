import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * Reads one file of a scanned tree that svc itself interprets (a repository's svc.config.json, the baseline it
 * names): never through a symbolic link (which could point at /etc/passwd or /dev/zero), only a regular file, and at
 * most `maxBytes`. Undefined when the file does not exist; an Error naming the problem otherwise.
 */
export async function readTreeFile(absPath: string, maxBytes = 1024 * 1024): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(absPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new Error('is a symbolic link; refused');
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new Error('is not a regular file; refused');
    if (stats.size > maxBytes) throw new Error(`is ${stats.size} bytes, over the ${maxBytes}-byte limit`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
