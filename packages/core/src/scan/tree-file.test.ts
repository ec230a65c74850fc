// Every read of a scanned tree refuses links out of it, FIFOs and devices, and files over the limit, without blocking.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recogniseConfig, explainNotConfig } from './sources/config.js';
import { describeProject } from './sources/directory.js';
import { inventoryWorkspace } from './inventory.js';
import { readTreeFile, readTreeFileSync } from './tree-file.js';

let work: string;
let outside: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'svc-tree-file-'));
  outside = path.join(work, 'outside.json');
  await writeFile(outside, JSON.stringify({ name: 'secret-outside-project', version: '9.9.9' }));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const fifo = (file: string) => execFileSync('mkfifo', [file]);

describe('readTreeFile', () => {
  it('reads a regular file within the limit, and says what is wrong with anything else', async () => {
    const file = path.join(work, 'plain.txt');
    await writeFile(file, 'hello');
    expect(await readTreeFile(file)).toBe('hello');
    expect(readTreeFileSync(file, 10).toString()).toBe('hello');
    expect(await readTreeFile(path.join(work, 'missing.txt'))).toBeUndefined();
    await expect(readTreeFile(file, 3)).rejects.toThrow('is 5 bytes, over the 3-byte limit');
    expect(() => readTreeFileSync(file, 3)).toThrow('is 5 bytes, over the 3-byte limit');

    const link = path.join(work, 'link.json');
    await symlink(outside, link);
    await expect(readTreeFile(link)).rejects.toThrow('is a symbolic link; refused');
    expect(() => readTreeFileSync(link, 1000)).toThrow('is a symbolic link; refused');
    // A link the user named is followed when asked, to a regular file only.
    expect(readTreeFileSync(link, 1000, { followLinks: true }).toString()).toContain('secret-outside-project');
    const zero = path.join(work, 'zero.json');
    await symlink('/dev/zero', zero);
    expect(() => readTreeFileSync(zero, 1000, { followLinks: true })).toThrow('is not a regular file; refused');
  });

  it('refuses a FIFO at once instead of waiting for a writer', async () => {
    const pipe = path.join(work, 'pipe.md');
    fifo(pipe);
    await expect(readTreeFile(pipe)).rejects.toThrow('is not a regular file; refused');
    expect(() => readTreeFileSync(pipe, 1000)).toThrow('is not a regular file; refused');
  });
});

describe('the readers of a scanned tree', () => {
  it('names a folder by its own manifest only: a link out of it, /dev/zero or a FIFO names nothing', async () => {
    for (const [name, make] of [
      ['linked', (file: string) => symlink(outside, file)],
      ['device', (file: string) => symlink('/dev/zero', file)],
      ['fifo', async (file: string) => fifo(file)],
    ] as const) {
      const root = path.join(work, `project-${name}`);
      await mkdir(root);
      await make(path.join(root, 'package.json'));
      expect(await describeProject(root), name).toEqual({});
    }
  });

  it('reads no FIFO or device as an MCP client config, and explains why', async () => {
    const pipe = path.join(work, 'mcp.json');
    fifo(pipe);
    expect(recogniseConfig(pipe)).toBeUndefined();
    expect(explainNotConfig(pipe)).toBe('cannot read file (is not a regular file; refused)');
  });

  it('inventories a folder with a FIFO and a link out of it without reading either', async () => {
    const root = path.join(work, 'inventory');
    await mkdir(root);
    await writeFile(path.join(root, 'index.js'), 'export const x = 1;\n');
    fifo(path.join(root, 'notes.md'));
    await symlink(outside, path.join(root, 'config.json'));
    const inventory = await inventoryWorkspace(root);
    expect(inventory.files.map((file) => file.path)).toEqual(['index.js']);
    expect(JSON.stringify(inventory)).not.toContain('secret-outside-project');
  });
});
