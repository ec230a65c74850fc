import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * Writes through a temp file in the same directory and renames it into place, so a reader (a CI step uploading SARIF)
 * never sees half a report, and an earlier report survives a failed write.
 */
export async function writeFileAtomic(path: string, data: string, options: { mode?: number } = {}): Promise<void> {
  const target = resolve(path);
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    // The mode is set at creation, so a secret is never readable by others, not even for a moment.
    await writeFile(temp, data, { flag: 'wx', ...(options.mode === undefined ? {} : { mode: options.mode }) });
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
