// Test support (imported by *.test.ts only): byte-exact tar and zip writers, so tests can build the hostile archives
// that well-behaved archivers refuse to produce (`../` names, absolute names, links out, devices, lying sizes).

import { createHash } from 'node:crypto';
import { deflateRawSync, gzipSync } from 'node:zlib';

export type TarEntryType = 'file' | 'dir' | 'symlink' | 'hardlink' | 'char' | 'block' | 'fifo' | 'pax' | 'paxGlobal';

export interface TarEntry {
  name: string;
  type?: TarEntryType;
  content?: string | Buffer;
  linkname?: string;
  mode?: number;
  /** The size the header declares, when it should lie about the body. */
  size?: number;
}

const TYPE_FLAGS: Record<TarEntryType, string> = {
  file: '0',
  hardlink: '1',
  symlink: '2',
  char: '3',
  block: '4',
  dir: '5',
  fifo: '6',
  pax: 'x',
  paxGlobal: 'g',
};

/** The body of a pax header (`pax` applies to the next entry, `paxGlobal` to all that follow): `<len> key=value\n`. */
export function paxBody(records: Record<string, string>): Buffer {
  return Buffer.concat(
    Object.entries(records).map(([key, value]) => {
      const text = ` ${key}=${value}\n`;
      // The length counts its own digits: grow it until it is stable.
      let length = Buffer.byteLength(text);
      while (String(length).length + Buffer.byteLength(text) !== length) length = String(length).length + Buffer.byteLength(text);
      return Buffer.from(`${length}${text}`);
    }),
  );
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function tarHeader(entry: TarEntry, size: number): Buffer {
  const header = Buffer.alloc(512);
  if (Buffer.byteLength(entry.name) > 100) throw new Error(`test tar writer: name too long: ${entry.name}`);
  header.write(entry.name, 0, 100, 'utf8');
  header.write(octal(entry.mode ?? (entry.type === 'dir' ? 0o755 : 0o644), 8), 100, 'ascii');
  header.write(octal(0, 8), 108, 'ascii');
  header.write(octal(0, 8), 116, 'ascii');
  header.write(octal(size, 12), 124, 'ascii');
  header.write(octal(1_700_000_000, 12), 136, 'ascii');
  header.write('        ', 148, 'ascii');
  header.write(TYPE_FLAGS[entry.type ?? 'file'], 156, 'ascii');
  if (entry.linkname) header.write(entry.linkname, 157, 100, 'utf8');
  header.write('ustar\0', 257, 'ascii');
  header.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return header;
}

/** One entry's header, body and padding. */
export function tarBlocks(entry: TarEntry): Buffer[] {
  const hasBody = entry.type === undefined || entry.type === 'file' || entry.type === 'pax' || entry.type === 'paxGlobal';
  const body = hasBody ? Buffer.from(entry.content ?? '') : Buffer.alloc(0);
  return [tarHeader(entry, entry.size ?? body.length), body, Buffer.alloc((512 - (body.length % 512)) % 512)];
}

/** An uncompressed tar stream with exactly the given entries. */
export function buildTar(entries: TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    blocks.push(...tarBlocks(entry));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export function buildTarGz(entries: TarEntry[]): Buffer {
  return gzipSync(buildTar(entries));
}

export interface ZipEntry {
  name: string;
  content?: string | Buffer;
  /** A Unix symlink entry: content is the link target. */
  symlink?: boolean;
  /** Store instead of deflate. */
  stored?: boolean;
}

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** A zip made "on Unix" (so mode bits, and with them symlinks, are visible to readers). */
export function buildZip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const raw = Buffer.from(entry.content ?? '');
    const stored = entry.stored || entry.symlink;
    const data = stored ? raw : deflateRawSync(raw);
    const method = stored ? 0 : 8;
    const crc = crc32(raw);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, data);
    const mode = entry.symlink ? 0o120777 : entry.name.endsWith('/') ? 0o040755 : 0o100644;
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(raw.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

export function sriSha512(data: Buffer): string {
  return `sha512-${createHash('sha512').update(data).digest('base64')}`;
}

export function sha256Hex(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
