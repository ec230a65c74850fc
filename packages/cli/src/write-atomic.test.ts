import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from './write-atomic.js';

describe('writeFileAtomic', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-cli-atomic-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('replaces the file and leaves no temp file behind', async () => {
    const path = join(dir, 'report.json');
    await writeFile(path, 'old');
    await writeFileAtomic(path, '{"new":true}');
    expect(await readFile(path, 'utf8')).toBe('{"new":true}');
    expect(await readdir(dir)).toEqual(['report.json']);
  });

  it('fails without touching anything when the directory does not exist', async () => {
    await expect(writeFileAtomic(join(dir, 'missing', 'r.json'), 'x')).rejects.toThrow(/ENOENT/);
    expect(await readdir(dir)).toEqual([]);
  });

  it('keeps the old report when the target is not writable as a file', async () => {
    const path = join(dir, 'is-a-dir');
    await import('node:fs/promises').then((fs) => fs.mkdir(path));
    await expect(writeFileAtomic(path, 'x')).rejects.toThrow();
    expect(await readdir(dir)).toEqual(['is-a-dir']);
  });
});
