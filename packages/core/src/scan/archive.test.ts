import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ArchiveError, extractTarGz, extractZip, safeEntryPath } from './archive.js';
import { buildTar, buildTarGz, buildZip, type TarEntry } from './sources/testing.js';

let base: string;
let dest: string;

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'svc-archive-test-'));
  dest = path.join(base, 'dest');
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function tarFile(entries: TarEntry[]): Promise<string> {
  const file = path.join(base, 'input.tgz');
  await writeFile(file, buildTarGz(entries));
  return file;
}

/** Everything under base except the input archive: proves nothing landed beside dest. */
function strayEntries(): string[] {
  return readdirSync(base).filter((name) => name !== 'input.tgz' && name !== 'input.zip' && name !== 'dest');
}

describe('safeEntryPath', () => {
  it('strips leading components and keeps inner dot-dot that stays inside', () => {
    expect(safeEntryPath('package/lib/a.js', 1)).toBe('lib/a.js');
    expect(safeEntryPath('package/lib/../b.js', 1)).toBe('b.js');
    expect(safeEntryPath('package/', 1)).toBeNull();
  });

  it('refuses absolute, drive-letter and escaping names, with either slash', () => {
    expect(() => safeEntryPath('/etc/passwd')).toThrow(ArchiveError);
    expect(() => safeEntryPath('C:\\Windows\\x')).toThrow(/absolute/);
    expect(() => safeEntryPath('package/../../x', 1)).toThrow(/escapes/);
    expect(() => safeEntryPath('a\\..\\..\\x')).toThrow(/escapes/);
  });
});

describe('extractTarGz', () => {
  it('unpacks an ordinary npm-style tarball with the first component stripped', async () => {
    const file = await tarFile([
      { name: 'package/', type: 'dir' },
      { name: 'package/package.json', content: '{"name":"x"}' },
      { name: 'package/lib/index.js', content: 'export const a = 1;\n', mode: 0o4755 },
    ]);
    const result = await extractTarGz(file, dest, { strip: 1 });
    expect(result.files).toBe(2);
    expect(result.skipped).toEqual([]);
    expect(await readFile(path.join(dest, 'lib/index.js'), 'utf8')).toBe('export const a = 1;\n');
    // setuid and exec bits from the archive are not carried over.
    expect(lstatSync(path.join(dest, 'lib/index.js')).mode & 0o7777).toBe(0o644 & ~process.umask());
  });

  it('accepts a stream as input', async () => {
    const stream = Readable.from([buildTarGz([{ name: 'a/b.txt', content: 'hi' }])]);
    await extractTarGz(stream, dest);
    expect(await readFile(path.join(dest, 'a/b.txt'), 'utf8')).toBe('hi');
  });

  it('refuses ../ paths, removes what it wrote and writes nothing outside dest', async () => {
    const file = await tarFile([
      { name: 'package/ok.txt', content: 'fine' },
      { name: 'package/../../evil.txt', content: 'pwned' },
    ]);
    await expect(extractTarGz(file, dest, { strip: 1 })).rejects.toThrow(/escapes the destination/);
    expect(existsSync(dest)).toBe(false);
    expect(existsSync(path.join(base, 'evil.txt'))).toBe(false);
    expect(strayEntries()).toEqual([]);
  });

  it('refuses absolute paths', async () => {
    const target = path.join(base, 'absolute-escape.txt');
    const file = await tarFile([{ name: target, content: 'pwned' }]);
    await expect(extractTarGz(file, dest)).rejects.toBeInstanceOf(ArchiveError);
    expect(existsSync(target)).toBe(false);
    expect(existsSync(dest)).toBe(false);
  });

  it('skips symlinks and hardlinks, records them, and never follows them', async () => {
    const file = await tarFile([
      { name: 'package/passwd', type: 'symlink', linkname: '/etc/passwd' },
      { name: 'package/out', type: 'symlink', linkname: base },
      // Classic: write through the symlinked directory created just before.
      { name: 'package/out/pwned.txt', content: 'pwned' },
      { name: 'package/hard', type: 'hardlink', linkname: '../../../etc/passwd' },
      { name: 'package/real.txt', content: 'real' },
    ]);
    const result = await extractTarGz(file, dest, { strip: 1 });
    expect(result.skipped).toEqual([
      { path: 'passwd', type: 'SymbolicLink', linkTarget: '/etc/passwd' },
      { path: 'out', type: 'SymbolicLink', linkTarget: base },
      { path: 'hard', type: 'Link', linkTarget: '../../../etc/passwd' },
    ]);
    expect(existsSync(path.join(dest, 'passwd'))).toBe(false);
    expect(existsSync(path.join(dest, 'hard'))).toBe(false);
    // The file meant to go through the link is a plain file inside dest; nothing reached base.
    expect(lstatSync(path.join(dest, 'out')).isDirectory()).toBe(true);
    expect(await readFile(path.join(dest, 'out/pwned.txt'), 'utf8')).toBe('pwned');
    expect(existsSync(path.join(base, 'pwned.txt'))).toBe(false);
    expect(strayEntries()).toEqual([]);
  });

  it('refuses device and fifo entries', async () => {
    for (const type of ['char', 'block', 'fifo'] as const) {
      const file = await tarFile([{ name: `package/${type}`, type }]);
      await expect(extractTarGz(file, dest, { strip: 1 })).rejects.toThrow(/Device|FIFO/);
      expect(existsSync(dest)).toBe(false);
    }
  });

  it('refuses a gzip bomb by its compression ratio, counting inflated bytes', async () => {
    const zeros = Buffer.alloc(16 * 1024 * 1024);
    const file = await tarFile([{ name: 'package/zeros.bin', content: zeros }]);
    await expect(extractTarGz(file, dest, { strip: 1 })).rejects.toThrow(/decompression bomb/);
    expect(existsSync(dest)).toBe(false);
  });

  it('refuses archives whose unpacked total exceeds maxBytes', async () => {
    const random = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => Math.floor(Math.random() * 256)));
    const file = await tarFile([
      { name: 'a.bin', content: random(40_000) },
      { name: 'b.bin', content: random(40_000) },
    ]);
    await expect(extractTarGz(file, dest, { limits: { maxBytes: 50_000 } })).rejects.toThrow(/exceeds 50000 bytes/);
    expect(existsSync(dest)).toBe(false);
  });

  it('refuses single files over maxFileBytes and too many files', async () => {
    const big = await tarFile([{ name: 'big.txt', content: 'x'.repeat(5000) }]);
    await expect(extractTarGz(big, dest, { limits: { maxFileBytes: 1000 } })).rejects.toThrow(/file limit/);
    const many = await tarFile(Array.from({ length: 12 }, (_, i) => ({ name: `f${i}.txt`, content: String(i) })));
    await expect(extractTarGz(many, dest, { limits: { maxFiles: 10 } })).rejects.toThrow(/more than 10 files/);
    expect(existsSync(dest)).toBe(false);
  });

  it('counts entries of every kind and limits depth, so empty directories cannot flood the disk\'s inodes', async () => {
    const directories = await tarFile(Array.from({ length: 300 }, (_, i) => ({ name: `d${i}/`, type: 'dir' as const })));
    await expect(extractTarGz(directories, dest, { limits: { maxEntries: 100 } })).rejects.toThrow(/more than 100 entries/);
    expect(existsSync(dest)).toBe(false);
    const deep = await tarFile([{ name: `${'d/'.repeat(12)}x.txt`, content: 'x' }]);
    await expect(extractTarGz(deep, dest, { limits: { maxDepth: 10 } })).rejects.toThrow(/nested more than 10 levels deep/);
    expect(existsSync(dest)).toBe(false);
  });

  it('names paths inside the package only when the file system refuses an entry', async () => {
    // `a` is a file, then `a/c` needs it to be a directory: the write fails with the path it tried.
    const clash = await tarFile([
      { name: 'a', content: 'x' },
      { name: 'a/c', content: 'y' },
    ]);
    const error = (await extractTarGz(clash, dest).then(
      () => undefined,
      (caught: unknown) => caught,
    )) as Error;
    expect(error).toBeInstanceOf(ArchiveError);
    expect(error.message).not.toContain(dest);
    expect(error.message).not.toContain(os.tmpdir());
  });

  it('refuses a gzip nested inside the gzip', async () => {
    const file = path.join(base, 'input.tgz');
    await writeFile(file, gzipSync(gzipSync(buildTar([{ name: 'a.txt', content: 'a' }]))));
    await expect(extractTarGz(file, dest)).rejects.toThrow(/nested compression/);
  });

  it('reports data that is not a tarball as an ArchiveError', async () => {
    const file = path.join(base, 'input.tgz');
    await writeFile(file, 'not gzip at all');
    await expect(extractTarGz(file, dest)).rejects.toBeInstanceOf(ArchiveError);
  });
});

describe('extractZip', () => {
  async function zipFile(entries: Parameters<typeof buildZip>[0]): Promise<string> {
    const file = path.join(base, 'input.zip');
    await writeFile(file, buildZip(entries));
    return file;
  }

  it('unpacks a wheel-shaped zip and skips symlinks', async () => {
    const file = await zipFile([
      { name: 'pkg/', stored: true },
      { name: 'pkg/__init__.py', content: 'print("hi")\n' },
      { name: 'pkg/link', symlink: true, content: '/etc/passwd' },
    ]);
    const result = await extractZip(file, dest);
    expect(result.files).toBe(1);
    expect(result.skipped).toEqual([{ path: 'pkg/link', type: 'SymbolicLink' }]);
    expect(await readFile(path.join(dest, 'pkg/__init__.py'), 'utf8')).toBe('print("hi")\n');
    expect(existsSync(path.join(dest, 'pkg/link'))).toBe(false);
  });

  it('refuses escaping and absolute names', async () => {
    const escaping = await zipFile([{ name: '../evil.py', content: 'x' }]);
    await expect(extractZip(escaping, dest)).rejects.toThrow(/escapes the destination/);
    expect(existsSync(path.join(base, 'evil.py'))).toBe(false);
    const absolute = await zipFile([{ name: '/tmp/evil.py', content: 'x' }]);
    await expect(extractZip(absolute, dest)).rejects.toBeInstanceOf(ArchiveError);
    expect(strayEntries()).toEqual([]);
  });

  it('refuses a zip bomb and too many files', async () => {
    const bomb = await zipFile([{ name: 'zeros.bin', content: Buffer.alloc(8 * 1024 * 1024) }]);
    await expect(extractZip(bomb, dest)).rejects.toThrow(/decompression bomb/);
    expect(existsSync(dest)).toBe(false);
    const many = await zipFile(Array.from({ length: 6 }, (_, i) => ({ name: `f${i}.py`, content: 'x' })));
    await expect(extractZip(many, dest, { limits: { maxFiles: 5 } })).rejects.toThrow(/more than 5 files/);
    const directories = await zipFile(Array.from({ length: 30 }, (_, i) => ({ name: `d${i}/`, stored: true })));
    await expect(extractZip(directories, dest, { limits: { maxEntries: 20 } })).rejects.toThrow(/more than 20 entries/);
  });
});
