// Checksums the registries publish: npm's Subresource Integrity strings (or legacy sha1 shasum) and PyPI's sha256.

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export type DigestAlgorithm = 'sha1' | 'sha256' | 'sha512';

export interface ExpectedDigest {
  algorithm: DigestAlgorithm;
  /** Lower-case hex. */
  hex: string;
}

const STRENGTH: Record<string, number> = { sha512: 3, sha384: 2, sha256: 1 };

/**
 * The strongest hash of an SRI string we can check (`sha512-<base64> sha1-…`). sha384 is skipped: the download
 * hashes sha1/sha256/sha512 only, and npm publishes sha512.
 */
export function parseIntegrity(integrity: string): ExpectedDigest | undefined {
  let best: ExpectedDigest | undefined;
  for (const token of integrity.trim().split(/\s+/)) {
    const match = /^(sha512|sha256)-([A-Za-z0-9+/=]+)(\?.*)?$/.exec(token);
    if (!match) continue;
    const algorithm = match[1] as 'sha512' | 'sha256';
    if (best && (STRENGTH[best.algorithm] ?? 0) >= (STRENGTH[algorithm] ?? 0)) continue;
    best = { algorithm, hex: Buffer.from(match[2] ?? '', 'base64').toString('hex') };
  }
  return best;
}

export function digestToIntegrity(digest: ExpectedDigest): string {
  return `${digest.algorithm}-${Buffer.from(digest.hex, 'hex').toString('base64')}`;
}

export async function hashFile(file: string, algorithm: DigestAlgorithm): Promise<string> {
  const hash = createHash(algorithm);
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
