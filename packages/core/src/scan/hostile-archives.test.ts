// A hostile-archive corpus, generated here (no binaries in the repository): the attacks of issue 12 and the classic
// ones, each unpacked through the real entry points (extractTarGz / extractZip, and the npm and PyPI sources against
// a stand-in registry on 127.0.0.1). Every case asserts the documented outcome (refused with a clear ArchiveError,
// or links skipped and listed), that nothing outside the job folder changed (a sentinel sibling directory is
// snapshotted before and after), and that the process's memory stayed bounded while unpacking.

import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ArchiveError, DEFAULT_ARCHIVE_LIMITS, extractTarGz, extractZip, type ExtractOptions, type ExtractResult } from './archive.js';
import { buildTarGz, buildZip, paxBody, sha256Hex, sriSha512, tarBlocks, type TarEntry, type ZipEntry } from './sources/testing.js';
import { fetchTarget, parseTarget, TargetError } from './target.js';

// Generous: unpacking streams, so even the bombs below should move RSS by a few MiB; a regression that buffers a
// whole archive or file (hundreds of MiB here) would not fit.
const RSS_CAP_BYTES = 256 * 1024 * 1024;
const MiB = 1024 * 1024;

let base: string;
let inputs: string;
let sentinel: string;
let job: string;
let dest: string;

beforeEach(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'svc-hostile-'));
  inputs = path.join(base, 'inputs');
  sentinel = path.join(base, 'sentinel');
  job = path.join(base, 'job');
  dest = path.join(job, 'dest');
  await mkdir(inputs);
  await mkdir(path.join(sentinel, 'sub'), { recursive: true });
  await mkdir(job);
  await writeFile(path.join(sentinel, 'secret.txt'), 'do not touch');
  await writeFile(path.join(sentinel, 'sub', 'config.json'), '{"keep":true}');
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Everything under dir (type, size, content hash or link target), to compare before and after an attack. */
function snapshot(dir: string, skip: readonly string[] = []): string[] {
  const lines: string[] = [];
  const walk = (current: string): void => {
    for (const name of readdirSync(current).sort()) {
      const full = path.join(current, name);
      const relative = path.relative(dir, full);
      if (skip.includes(relative)) continue;
      const info = lstatSync(full);
      if (info.isSymbolicLink()) lines.push(`${relative} -> ${readlinkSync(full)}`);
      else if (info.isDirectory()) {
        lines.push(`${relative}/`);
        walk(full);
      } else lines.push(`${relative} ${info.size} ${info.nlink} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`);
    }
  };
  walk(dir);
  return lines;
}

interface Outcome {
  result?: ExtractResult;
  error?: unknown;
  rssGrowth: number;
}

/**
 * Runs one unpack and checks what every case must hold: nothing outside the job folder changed, the peak RSS grew by
 * less than the cap (sampled while it runs, not timed), and what landed in dest holds no link and stays inside it.
 */
async function attempt(run: () => Promise<ExtractResult>): Promise<Outcome> {
  const before = snapshot(base, ['job']);
  const start = process.memoryUsage().rss;
  let peak = start;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  let outcome: Outcome;
  try {
    outcome = { result: await run(), rssGrowth: 0 };
  } catch (error) {
    outcome = { error, rssGrowth: 0 };
  } finally {
    clearInterval(sampler);
  }
  outcome.rssGrowth = Math.max(peak, process.memoryUsage().rss) - start;
  expect(snapshot(base, ['job'])).toEqual(before);
  expect(outcome.rssGrowth).toBeLessThan(RSS_CAP_BYTES);
  if (existsSync(dest)) {
    for (const line of snapshot(dest)) expect(line, 'a link was created in dest').not.toContain(' -> ');
  }
  return outcome;
}

/** The case must be refused: an ArchiveError matching `reason`, and dest removed. */
async function expectRefused(run: () => Promise<ExtractResult>, reason: RegExp): Promise<void> {
  const { error } = await attempt(run);
  expect(error).toBeInstanceOf(ArchiveError);
  expect((error as Error).message).toMatch(reason);
  // Error texts name paths inside the package only, never the job folder.
  expect((error as Error).message).not.toContain(job);
  expect(existsSync(dest)).toBe(false);
}

async function tarFile(entries: TarEntry[], name = 'input.tgz'): Promise<string> {
  const file = path.join(inputs, name);
  await writeFile(file, buildTarGz(entries));
  return file;
}

async function zipFile(entries: ZipEntry[], name = 'input.zip'): Promise<string> {
  const file = path.join(inputs, name);
  await writeFile(file, buildZip(entries));
  return file;
}

/** A .tar.gz written as a stream, for archives whose tar would be hundreds of MiB in memory. */
async function streamedTarGz(entries: () => Iterable<Buffer>, name = 'input.tgz'): Promise<string> {
  const file = path.join(inputs, name);
  await pipeline(Readable.from(entries()), createGzip({ level: 1 }), createWriteStream(file));
  return file;
}

const tgz = (file: string, options: ExtractOptions = {}) => () => extractTarGz(file, dest, options);
const zip = (file: string, options: ExtractOptions = {}) => () => extractZip(file, dest, options);

describe('hostile tarballs', () => {
  it.each<[string, TarEntry[], RegExp]>([
    ['a ../ name', [{ name: 'package/ok.txt', content: 'ok' }, { name: 'package/../../sentinel/secret.txt', content: 'pwned' }], /escapes the destination/],
    ['a ../ name with backslashes', [{ name: 'package\\..\\..\\evil.txt', content: 'pwned' }], /escapes the destination/],
    ['a ../ directory', [{ name: 'package/../../sentinel/new/', type: 'dir' }], /escapes the destination/],
    ['an absolute name', [{ name: '/tmp/svc-hostile-absolute.txt', content: 'pwned' }], /absolute path/],
    ['a drive-letter name', [{ name: 'C:\\evil.txt', content: 'pwned' }], /absolute path/],
    ['a character device', [{ name: 'package/null', type: 'char' }], /CharacterDevice entry/],
    ['a block device', [{ name: 'package/sda', type: 'block' }], /BlockDevice entry/],
    ['a FIFO', [{ name: 'package/pipe', type: 'fifo' }], /FIFO entry/],
    ['a pax header that renames the next entry out of dest', [
      { name: 'package/PaxHeader', type: 'pax', content: paxBody({ path: '../../sentinel/secret.txt' }) },
      { name: 'package/innocent.txt', content: 'pwned' },
    ], /escapes the destination/],
    ['a pax header that makes the next entry absolute', [
      { name: 'package/PaxHeader', type: 'pax', content: paxBody({ path: '/tmp/svc-hostile-absolute.txt' }) },
      { name: 'package/innocent.txt', content: 'pwned' },
    ], /absolute path/],
    // A pax path may be longer than ustar's 100 bytes, which is how a real archive nests this deep.
    ['a file nested past the depth limit', [
      { name: 'package/PaxHeader', type: 'pax', content: paxBody({ path: `${'d/'.repeat(DEFAULT_ARCHIVE_LIMITS.maxDepth)}x.txt` }) },
      { name: 'package/x.txt', content: 'x' },
    ], /nested more than 48 levels deep/],
    ['a directory nested past the depth limit', [{ name: `${'d/'.repeat(DEFAULT_ARCHIVE_LIMITS.maxDepth + 1)}`, type: 'dir' }], /nested more than 48 levels deep/],
    ['a file declaring more than the file-size limit', [{ name: 'package/big.bin', content: 'x', size: DEFAULT_ARCHIVE_LIMITS.maxFileBytes + 1 }], /over the 52428800-byte file limit/],
  ])('refuses %s', async (_label, entries, reason) => {
    await expectRefused(tgz(await tarFile(entries)), reason);
    expect(existsSync('/tmp/svc-hostile-absolute.txt')).toBe(false);
  });

  it('skips symlinks and hardlinks pointing outside, and a file "through" a link lands inside dest as a plain file', async () => {
    const secret = path.join(sentinel, 'secret.txt');
    const file = await tarFile([
      { name: 'package/out', type: 'symlink', linkname: sentinel },
      { name: 'package/out/secret.txt', content: 'pwned' },
      { name: 'package/up', type: 'symlink', linkname: '../../..' },
      { name: 'package/up/sentinel/sub/config.json', content: 'pwned' },
      { name: 'package/hard-abs', type: 'hardlink', linkname: secret },
      { name: 'package/hard-rel', type: 'hardlink', linkname: '../../sentinel/secret.txt' },
      { name: 'package/etc', type: 'symlink', linkname: '/etc/passwd' },
    ]);
    const { result } = await attempt(tgz(file, { strip: 1 }));
    expect(result?.skipped.map((entry) => `${entry.type} ${entry.path}`)).toEqual([
      'SymbolicLink out',
      'SymbolicLink up',
      'Link hard-abs',
      'Link hard-rel',
      'SymbolicLink etc',
    ]);
    expect(readFileSync(path.join(dest, 'out/secret.txt'), 'utf8')).toBe('pwned');
    expect(lstatSync(path.join(dest, 'out')).isDirectory()).toBe(true);
    expect(lstatSync(path.join(dest, 'up/sentinel/sub/config.json')).isFile()).toBe(true);
    // The sentinel's file kept its one link and its content (the snapshot in attempt() checks the whole tree).
    expect(lstatSync(secret).nlink).toBe(1);
  });

  it('ignores a path in a global pax header (tar applies it to no entry), so the entry keeps its own name', async () => {
    const file = await tarFile([
      { name: 'pax_global_header', type: 'paxGlobal', content: paxBody({ path: '../../sentinel/secret.txt' }) },
      { name: 'package/innocent.txt', content: 'fine' },
    ]);
    const { result } = await attempt(tgz(file, { strip: 1 }));
    expect(result?.files).toBe(1);
    expect(readFileSync(path.join(dest, 'innocent.txt'), 'utf8')).toBe('fine');
  });

  it('takes the last of duplicate entries, as tar does, and still writes only inside dest', async () => {
    const file = await tarFile([
      { name: 'package/index.js', content: 'first' },
      { name: 'package/index.js', content: 'second' },
      { name: 'package/lib', type: 'symlink', linkname: sentinel },
      { name: 'package/lib/', type: 'dir' },
      { name: 'package/lib/secret.txt', content: 'pwned' },
    ]);
    const { result } = await attempt(tgz(file, { strip: 1 }));
    expect(result?.files).toBe(3);
    expect(readFileSync(path.join(dest, 'index.js'), 'utf8')).toBe('second');
    expect(readFileSync(path.join(dest, 'lib/secret.txt'), 'utf8')).toBe('pwned');
  });

  it('refuses a file where a directory of the same name was (and the reverse) with a path inside the package', async () => {
    await expectRefused(tgz(await tarFile([{ name: 'a/', type: 'dir' }, { name: 'a', content: 'x' }])), /unreadable archive/);
    await expectRefused(tgz(await tarFile([{ name: 'a', content: 'x' }, { name: 'a/b', content: 'y' }], 'reverse.tgz')), /unreadable archive/);
  });

  it('refuses 300,000 directory entries at the entry limit, counting every kind', async () => {
    const file = await streamedTarGz(function* () {
      const batch: Buffer[] = [];
      for (let i = 0; i < 300_000; i++) {
        batch.push(...tarBlocks({ name: `package/d${i}/`, type: 'dir' }));
        if (batch.length >= 3000) yield Buffer.concat(batch.splice(0));
      }
      yield Buffer.concat([...batch, Buffer.alloc(1024)]);
    });
    await expectRefused(tgz(file, { strip: 1 }), /more than 40000 entries/);
  });

  it('refuses a small gzip that inflates far past the limits (a ratio bomb)', async () => {
    const zeros = (bytes: number) =>
      function* (): Iterable<Buffer> {
        const chunk = Buffer.alloc(MiB);
        yield Buffer.concat(tarBlocks({ name: 'package/zeros.bin', content: '', size: bytes }));
        for (let i = 0; i < bytes / MiB; i++) yield chunk;
        yield Buffer.alloc(1024);
      };
    // 1 GiB of zeros is about 1 MiB of gzip: stopped by the ratio long before the total.
    const bomb = await streamedTarGz(zeros(1024 * MiB));
    await expectRefused(tgz(bomb, { limits: { maxFileBytes: 2048 * MiB } }), /decompression bomb/);
    // With the ratio check out of the way (an operator who raised it), the total-bytes limit still stops it.
    await expectRefused(tgz(bomb, { limits: { maxFileBytes: 2048 * MiB, maxRatio: Number.MAX_SAFE_INTEGER, maxBytes: 32 * MiB } }), /exceeds 33554432 bytes/);
  });

  it('refuses a gzip of a gzip, whose inner inflation the counters would not see', async () => {
    const inner = buildTarGz([{ name: 'package/a.txt', content: 'a' }]);
    const file = path.join(inputs, 'double.tgz');
    await pipeline(Readable.from([inner]), createGzip(), createWriteStream(file));
    await expectRefused(tgz(file), /nested compression/);
  });
});

describe('hostile zips (wheels)', () => {
  it.each<[string, ZipEntry[], RegExp]>([
    ['zip-slip with ../', [{ name: 'pkg/__init__.py', content: '' }, { name: '../../sentinel/secret.txt', content: 'pwned' }], /escapes the destination/],
    ['zip-slip with backslashes', [{ name: '..\\..\\sentinel\\secret.txt', content: 'pwned' }], /escapes the destination/],
    ['an absolute name', [{ name: '/tmp/svc-hostile-absolute.py', content: 'pwned' }], /escapes the destination|absolute/],
    ['a name nested past the depth limit', [{ name: `${'d/'.repeat(DEFAULT_ARCHIVE_LIMITS.maxDepth)}x.py`, content: 'x' }], /nested more than 48 levels deep/],
    ['a deflated bomb', [{ name: 'zeros.bin', content: Buffer.alloc(16 * MiB) }], /decompression bomb/],
  ])('refuses %s', async (_label, entries, reason) => {
    await expectRefused(zip(await zipFile(entries)), reason);
  });

  it('refuses an entry that inflates to more than its header declares', async () => {
    const honest = buildZip([{ name: 'zeros.bin', content: Buffer.alloc(4 * MiB) }]);
    // Patch both headers' uncompressed size to 10 bytes: the counters must go by what is inflated, not the header.
    const local = honest.indexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
    const central = honest.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    honest.writeUInt32LE(10, local + 22);
    honest.writeUInt32LE(10, central + 24);
    const file = path.join(inputs, 'liar.zip');
    await writeFile(file, honest);
    // Found here: yauzl raised this before anything listened, an uncaught exception that ended the process.
    await expectRefused(zip(file), /unreadable archive \(too many bytes in the stream/);
  });

  it('refuses more entries than the limit, directories included', async () => {
    const entries = Array.from({ length: 120 }, (_, i) => ({ name: `d${i}/`, stored: true }));
    await expectRefused(zip(await zipFile(entries), { limits: { maxEntries: 100 } }), /more than 100 entries/);
  });

  it('skips a symlink entry pointing outside and writes a same-named file inside dest', async () => {
    const { result } = await attempt(zip(await zipFile([
      { name: 'pkg/out', symlink: true, content: sentinel },
      { name: 'pkg/out/secret.txt', content: 'pwned' },
    ])));
    expect(result?.skipped).toEqual([{ path: 'pkg/out', type: 'SymbolicLink' }]);
    expect(lstatSync(path.join(dest, 'pkg/out')).isDirectory()).toBe(true);
  });
});

describe('through the npm and PyPI sources', () => {
  // A stand-in registry on 127.0.0.1 serving npm packuments, PyPI JSON documents and the hostile archives.
  let server: Server;
  let registry: string;
  const files = new Map<string, Buffer>();
  const documents = new Map<string, unknown>();

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = decodeURIComponent(req.url ?? '');
      const body = files.get(url) ?? (documents.has(url) ? Buffer.from(JSON.stringify(documents.get(url))) : undefined);
      res.statusCode = body ? 200 : 404;
      res.end(body ?? '{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

    const tarball = buildTarGz([
      { name: 'package/package.json', content: '{"name":"slip-npm","version":"1.0.0"}' },
      { name: 'package/out', type: 'symlink', linkname: '/' },
      { name: 'package/../../../escape.txt', content: 'pwned' },
    ]);
    files.set('/tarballs/slip-npm-1.0.0.tgz', tarball);
    documents.set('/slip-npm', {
      name: 'slip-npm',
      'dist-tags': { latest: '1.0.0' },
      versions: { '1.0.0': { name: 'slip-npm', version: '1.0.0', dist: { tarball: `${registry}tarballs/slip-npm-1.0.0.tgz`, integrity: sriSha512(tarball) } } },
    });

    const wheel = buildZip([{ name: 'slip_wheel/__init__.py', content: '' }, { name: '../../../escape.py', content: 'pwned' }]);
    files.set('/packages/slip_wheel-1.0.0-py3-none-any.whl', wheel);
    documents.set('/pypi/slip-wheel/1.0.0/json', {
      info: { name: 'slip-wheel', version: '1.0.0' },
      urls: [{ filename: 'slip_wheel-1.0.0-py3-none-any.whl', url: `${registry}packages/slip_wheel-1.0.0-py3-none-any.whl`, packagetype: 'bdist_wheel', python_version: 'py3', digests: { sha256: sha256Hex(wheel) } }],
    });
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it.each([
    ['an npm tarball', 'npm:slip-npm@1.0.0'],
    ['a Python wheel', 'pypi:slip-wheel==1.0.0'],
  ])('zip-slip in %s is a TargetError, and the scan temp folder is gone', async (_label, input) => {
    const { error } = await attempt(async () => {
      await fetchTarget(parseTarget(input), { npmRegistry: registry, pypiIndex: registry, tempRoot: job });
      throw new Error('expected a refusal');
    });
    expect(error).toBeInstanceOf(TargetError);
    expect((error as TargetError).reason).toMatch(/^refused archive: entry escapes the destination/);
    expect((error as TargetError).reason).not.toContain(job);
    expect(readdirSync(job)).toEqual([]);
  });
});
