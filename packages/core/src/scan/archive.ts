// Unpacking of untrusted archives (npm tarballs, sdists, wheels) into a private directory.
//
// The policy (docs/targets.md): every entry lands inside `dest` or the whole extraction is refused; links are never
// created and never followed (they are skipped and listed); device and fifo entries are refused; the unpacked total,
// the file count, each file's size and the compression ratio are bounded, counted on the bytes actually inflated.
// We parse with node-tar / yauzl but write every file ourselves, so no library default can create a link or set a
// mode we did not choose.

import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import yauzl from 'yauzl';

export interface ArchiveLimits {
  /** Total unpacked bytes (for tarballs: the whole inflated tar stream). */
  maxBytes: number;
  maxFiles: number;
  /** Entries of every kind (directories and links too): 300,000 empty directories cost inodes and time, not bytes. */
  maxEntries: number;
  /** Path components of one entry after the strip. */
  maxDepth: number;
  maxFileBytes: number;
  /** Inflated bytes per compressed byte beyond which the archive is treated as a decompression bomb. */
  maxRatio: number;
}

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxBytes: 200 * 1024 * 1024,
  maxFiles: 20_000,
  maxEntries: 40_000,
  maxDepth: 48,
  maxFileBytes: 50 * 1024 * 1024,
  maxRatio: 200,
};

// Small inputs compress extremely well (a 1 KiB run of spaces is ~20 bytes gzipped), so the ratio guard only applies
// once this much has been inflated.
const RATIO_FLOOR_BYTES = 1024 * 1024;

export interface ExtractOptions {
  limits?: Partial<ArchiveLimits>;
  /** Leading path components to drop: 1 for npm tarballs (`package/`) and sdists (`name-version/`). */
  strip?: number;
  signal?: AbortSignal;
}

export interface SkippedEntry {
  path: string;
  type: string;
  /** Where a link pointed; recorded so rules can report it, never resolved. */
  linkTarget?: string;
}

export interface ExtractResult {
  files: number;
  bytes: number;
  skipped: SkippedEntry[];
}

export class ArchiveError extends Error {
  constructor(readonly reason: string) {
    super(`refused archive: ${reason}`);
    this.name = 'ArchiveError';
  }
}

/**
 * Maps an archive entry name to a path relative to dest, or null for the archive's root itself.
 * Throws when the name is absolute or climbs out of dest; backslashes count as separators so a name crafted for
 * Windows cannot escape there either.
 */
export function safeEntryPath(name: string, strip = 0): string | null {
  if (name.includes('\0')) throw new ArchiveError(`entry name contains a NUL byte: ${JSON.stringify(name)}`);
  const slashed = name.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[a-zA-Z]:/.test(slashed)) throw new ArchiveError(`absolute path in entry: ${name}`);
  const parts = slashed.split('/').filter((part) => part !== '' && part !== '.');
  const kept = parts.slice(strip);
  if (kept.length === 0) return null;
  const normalised = path.posix.normalize(kept.join('/'));
  if (normalised === '..' || normalised.startsWith('../')) throw new ArchiveError(`entry escapes the destination: ${name}`);
  if (normalised === '.') return null;
  return normalised;
}

function resolveLimits(limits?: Partial<ArchiveLimits>): ArchiveLimits {
  return { ...DEFAULT_ARCHIVE_LIMITS, ...limits };
}

/** Running totals shared by both formats, so the same limits read the same way. */
class Budget {
  files = 0;
  entries = 0;
  bytes = 0;
  constructor(readonly limits: ArchiveLimits) {}

  /** Every entry, whatever its kind, before it is looked at further. */
  addEntry(name: string, relative: string | null): void {
    this.entries += 1;
    if (this.entries > this.limits.maxEntries) throw new ArchiveError(`more than ${this.limits.maxEntries} entries`);
    if (relative !== null && relative.split('/').length > this.limits.maxDepth) {
      throw new ArchiveError(`${name} is nested more than ${this.limits.maxDepth} levels deep`);
    }
  }

  addFile(name: string, declaredSize: number): void {
    this.files += 1;
    if (this.files > this.limits.maxFiles) throw new ArchiveError(`more than ${this.limits.maxFiles} files`);
    if (declaredSize > this.limits.maxFileBytes) {
      throw new ArchiveError(`${name} is ${declaredSize} bytes, over the ${this.limits.maxFileBytes}-byte file limit`);
    }
  }

  /** A Transform that counts what is actually written for one file, whatever its header claimed. */
  fileCounter(name: string): Transform {
    let written = 0;
    return new Transform({
      transform: (chunk: Buffer, _encoding, callback) => {
        written += chunk.length;
        if (written > this.limits.maxFileBytes) {
          callback(new ArchiveError(`${name} exceeds the ${this.limits.maxFileBytes}-byte file limit`));
          return;
        }
        this.bytes += chunk.length;
        if (this.bytes > this.limits.maxBytes) {
          callback(new ArchiveError(`unpacked size exceeds ${this.limits.maxBytes} bytes`));
          return;
        }
        callback(null, chunk);
      },
    });
  }
}

/** Counts compressed bytes going in, so the inflate side can compute the running ratio. */
function byteCounter(onBytes: (n: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      onBytes(chunk.length);
      callback(null, chunk);
    },
  });
}

async function prepareDest(dest: string): Promise<string> {
  const absolute = path.resolve(dest);
  await mkdir(absolute, { recursive: true });
  return absolute;
}

function insideDest(dest: string, relative: string): string {
  const target = path.resolve(dest, relative);
  if (target !== dest && !target.startsWith(dest + path.sep)) {
    throw new ArchiveError(`entry escapes the destination: ${relative}`);
  }
  return target;
}

/**
 * Opens the entry only once its directory exists, and consumes it at once: yauzl's stream starts inflating as soon as
 * it is opened, and an error it raises before the pipeline listens (an entry larger than its header says) would be an
 * uncaught exception that takes the whole process down.
 */
async function writeEntryFile(open: () => Promise<Readable>, target: string, counter: Transform): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true });
  // 0o644 whatever the archive says: nothing here is ever executed, and setuid bits must not survive.
  await pipeline(await open(), counter, createWriteStream(target, { mode: 0o644 }));
}

/**
 * Unpacks a .tar.gz (file path or stream of the compressed bytes) into dest. On any refusal dest is removed and an
 * ArchiveError is thrown; nothing is ever written outside dest.
 */
export async function extractTarGz(
  input: string | Readable,
  dest: string,
  options: ExtractOptions = {},
): Promise<ExtractResult> {
  const limits = resolveLimits(options.limits);
  const root = await prepareDest(dest);
  const budget = new Budget(limits);
  const skipped: SkippedEntry[] = [];
  let compressedBytes = 0;
  let inflatedBytes = 0;
  let firstChunk = true;

  const inflateGuard = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (firstChunk) {
        firstChunk = false;
        // A gzip inside the gzip would be inflated by node-tar behind our counters.
        if (chunk[0] === 0x1f && chunk[1] === 0x8b) {
          callback(new ArchiveError('nested compression inside the tarball'));
          return;
        }
      }
      inflatedBytes += chunk.length;
      if (inflatedBytes > limits.maxBytes) {
        callback(new ArchiveError(`decompressed size exceeds ${limits.maxBytes} bytes`));
        return;
      }
      if (inflatedBytes > RATIO_FLOOR_BYTES && inflatedBytes > limits.maxRatio * Math.max(compressedBytes, 1)) {
        callback(new ArchiveError(`compression ratio above ${limits.maxRatio}:1 (decompression bomb)`));
        return;
      }
      callback(null, chunk);
    },
  });

  const pendingWrites: Array<Promise<void>> = [];
  // Files still being written: when the stream fails mid-entry the entry never ends, so their writers are destroyed.
  const openWriters = new Set<WriteStream>();

  // Minipass entries and Node's stream.pipeline do not agree on teardown, so entries are piped by hand; a writer
  // destroyed during cleanup closes, which settles the promise.
  function writeTarFile(entry: ReadEntry, target: string): Promise<void> {
    return new Promise((resolve, reject) => {
      if (cleaningUp) {
        entry.resume();
        resolve();
        return;
      }
      const out = createWriteStream(target, { mode: 0o644 });
      openWriters.add(out);
      out.on('error', reject);
      out.on('close', () => {
        openWriters.delete(out);
        resolve();
      });
      entry.pipe(out);
    });
  }

  let entryError: unknown;
  let cleaningUp = false;
  const parser = new Parser({
    strict: true,
    brotli: false,
    zstd: false,
    // A refused entry aborts the parser, which ends the pipeline below with the refusal.
    onReadEntry: (entry: ReadEntry) => {
      pendingWrites.push(handleTarEntry(entry).catch((error: unknown) => fail(error)));
    },
  });

  function fail(error: unknown): void {
    if (cleaningUp) return;
    entryError ??= error;
    parser.abort(error instanceof Error ? error : new Error(String(error)));
  }

  async function handleTarEntry(entry: ReadEntry): Promise<void> {
    const relative = safeEntryPath(entry.path, options.strip ?? 0);
    budget.addEntry(entry.path, relative);
    switch (entry.type) {
      case 'Directory':
      case 'GNUDumpDir':
        entry.resume();
        if (relative !== null) await mkdir(insideDest(root, relative), { recursive: true });
        return;
      case 'File':
      case 'OldFile':
      case 'ContiguousFile': {
        if (relative === null) throw new ArchiveError(`file entry without a name: ${entry.path}`);
        // The header's size is exactly the body length in tar, so addFile's check is the per-file limit here.
        budget.addFile(entry.path, entry.size);
        const target = insideDest(root, relative);
        await mkdir(path.dirname(target), { recursive: true });
        await writeTarFile(entry, target);
        return;
      }
      case 'SymbolicLink':
      case 'Link':
        entry.resume();
        skipped.push({ path: relative ?? entry.path, type: entry.type, linkTarget: entry.linkpath });
        return;
      case 'CharacterDevice':
      case 'BlockDevice':
      case 'FIFO':
        throw new ArchiveError(`${entry.type} entry ${entry.path}`);
      default:
        entry.resume();
        skipped.push({ path: relative ?? entry.path, type: entry.type });
    }
  }

  try {
    const source = typeof input === 'string' ? createReadStream(input) : input;
    await pipeline(
      source,
      byteCounter((n) => (compressedBytes += n)),
      createGunzip(),
      inflateGuard,
      feed(parser, inflateGuard),
      { signal: options.signal },
    );
    await Promise.all(pendingWrites);
    if (entryError !== undefined) throw entryError;
    return { files: budget.files, bytes: inflatedBytes, skipped };
  } catch (error) {
    const cause = entryError ?? error;
    cleaningUp = true;
    for (const writer of openWriters) writer.destroy();
    await Promise.allSettled(pendingWrites);
    await rm(root, { recursive: true, force: true });
    throw toArchiveError(cause, root);
  }
}

/** node-tar's Parser is not a Node Writable, so pipeline ends in this sink that honours its backpressure and end. */
function feed(parser: Parser, upstream: Transform): (source: AsyncIterable<Buffer>) => Promise<void> {
  return async (source) => {
    const finished = new Promise<void>((resolve, reject) => {
      parser.on('end', () => resolve());
      parser.on('error', reject);
      parser.on('abort', reject);
    });
    // The loop below may still be awaiting a chunk when the parser fails; the rejection is observed after it.
    finished.catch(() => undefined);
    // If the upstream fails while we wait for a drain, the parser never drains: stop waiting when upstream closes.
    const upstreamClosed = once(upstream, 'close');
    upstreamClosed.catch(() => undefined);
    for await (const chunk of source) {
      if (!parser.write(chunk)) await Promise.race([once(parser, 'drain'), finished, upstreamClosed]);
    }
    parser.end();
    await finished;
  };
}

function toArchiveError(error: unknown, root: string): Error {
  if (error instanceof ArchiveError) return error;
  if (error instanceof Error && error.name === 'AbortError') return error;
  return new ArchiveError(`unreadable archive (${withoutTempPath(error, root)})`);
}

/**
 * A file-system error names the absolute path it failed on, which is the scan's temp folder: the caller (a daemon's
 * client among them) is told the path inside the package only.
 */
function withoutTempPath(error: unknown, root: string): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split(`${root}${path.sep}`).join('').split(root).join('.');
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: true, validateEntrySizes: true }, (error, zip) => {
      if (error) reject(error);
      else resolve(zip);
    });
  });
}

function openZipEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error) reject(error);
      else resolve(stream);
    });
  });
}

// Unix file type bits live in the high half of externalFileAttributes when the zip was made on Unix.
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

function zipEntryType(entry: yauzl.Entry): 'file' | 'directory' | 'symlink' | 'special' {
  if (entry.fileName.endsWith('/')) return 'directory';
  const madeOnUnix = entry.versionMadeBy >> 8 === 3;
  const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
  if (!madeOnUnix || mode === 0 || mode === S_IFREG) return 'file';
  if (mode === S_IFDIR) return 'directory';
  if (mode === S_IFLNK) return 'symlink';
  return 'special';
}

/** Unpacks a zip (wheels) into dest under the same policy as extractTarGz. */
export async function extractZip(file: string, dest: string, options: ExtractOptions = {}): Promise<ExtractResult> {
  const limits = resolveLimits(options.limits);
  const root = await prepareDest(dest);
  const budget = new Budget(limits);
  const skipped: SkippedEntry[] = [];
  const { size: compressedTotal } = await stat(file);
  let zip: yauzl.ZipFile | undefined;
  try {
    zip = await openZip(file);
    if (zip.entryCount > limits.maxEntries) throw new ArchiveError(`more than ${limits.maxEntries} entries`);
    const opened = zip;
    let onAbort: (() => void) | undefined;
    await new Promise<void>((resolve, reject) => {
      onAbort = (): void => reject(options.signal?.reason ?? new Error('aborted'));
      options.signal?.addEventListener('abort', onAbort, { once: true });
      opened.on('error', reject);
      opened.on('end', () => resolve());
      // lazyEntries: one entry at a time, the next only once this one is on disk.
      opened.on('entry', (entry: yauzl.Entry) => {
        handleZipEntry(opened, entry).then(
          () => opened.readEntry(),
          (error: unknown) => reject(error),
        );
      });
      opened.readEntry();
    }).finally(() => {
      if (onAbort) options.signal?.removeEventListener('abort', onAbort);
    });
    if (budget.bytes > limits.maxRatio * Math.max(compressedTotal, 1) && budget.bytes > RATIO_FLOOR_BYTES) {
      throw new ArchiveError(`compression ratio above ${limits.maxRatio}:1 (decompression bomb)`);
    }
    return { files: budget.files, bytes: budget.bytes, skipped };
  } catch (error) {
    zip?.close();
    await rm(root, { recursive: true, force: true });
    throw toZipError(error, root);
  }

  async function handleZipEntry(opened: yauzl.ZipFile, entry: yauzl.Entry): Promise<void> {
    options.signal?.throwIfAborted();
    const relative = safeEntryPath(entry.fileName, options.strip ?? 0);
    budget.addEntry(entry.fileName, relative);
    const type = zipEntryType(entry);
    if (type === 'symlink') {
      skipped.push({ path: relative ?? entry.fileName, type: 'SymbolicLink' });
      return;
    }
    if (type === 'special') throw new ArchiveError(`special file entry ${entry.fileName}`);
    if (relative === null) return;
    if (type === 'directory') {
      await mkdir(insideDest(root, relative), { recursive: true });
      return;
    }
    budget.addFile(entry.fileName, entry.uncompressedSize);
    if (budget.bytes + entry.uncompressedSize > limits.maxBytes) {
      throw new ArchiveError(`unpacked size exceeds ${limits.maxBytes} bytes`);
    }
    if (entry.uncompressedSize > RATIO_FLOOR_BYTES && entry.uncompressedSize > limits.maxRatio * Math.max(entry.compressedSize, 1)) {
      throw new ArchiveError(`compression ratio of ${entry.fileName} above ${limits.maxRatio}:1 (decompression bomb)`);
    }
    await writeEntryFile(() => openZipEntry(opened, entry), insideDest(root, relative), budget.fileCounter(entry.fileName));
  }
}

function toZipError(error: unknown, root: string): Error {
  if (error instanceof ArchiveError) return error;
  if (error instanceof Error && error.name === 'AbortError') return error;
  const message = withoutTempPath(error, root);
  // yauzl validates names itself and reports escapes as "absolute path: x" / "invalid relative path: x".
  if (/^(absolute path|invalid relative path)/.test(message)) return new ArchiveError(`entry escapes the destination: ${message}`);
  return new ArchiveError(`unreadable archive (${message})`);
}
