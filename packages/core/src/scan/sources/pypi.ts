// PyPI packages through the JSON API (`/pypi/<name>[/<version>]/json`): prefer the sdist (the source as published),
// else a pure-Python py3 wheel; check the sha256 PyPI publishes; unpack.

import path from 'node:path';
import type { PackageMetadata, ScanTarget, Workspace } from '../model.js';
import { DEFAULT_ARCHIVE_LIMITS, extractTarGz, extractZip } from '../archive.js';
import { asTargetError, TargetError } from './errors.js';
import { downloadFile, getJson } from './http.js';
import type { SourceOptions } from './options.js';
import { removeTempDir, withTempDir } from './temp.js';

export const DEFAULT_PYPI_INDEX = 'https://pypi.org/';

/**
 * The index to use: the option, then `SVC_PYPI_INDEX`, then the host of pip's `PIP_INDEX_URL` when it is a
 * `…/simple` URL (PyPI mirrors such as devpi and Warehouse serve the JSON API beside it), then pypi.org.
 */
export function pypiIndexFor(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const explicit = option ?? env.SVC_PYPI_INDEX;
  if (explicit) return explicit.endsWith('/') ? explicit : `${explicit}/`;
  const pip = env.PIP_INDEX_URL;
  if (pip) {
    const match = /^(https?:\/\/[^\s]+?\/)simple\/?$/.exec(pip);
    if (match?.[1]) return match[1];
  }
  return DEFAULT_PYPI_INDEX;
}

interface PypiFile {
  filename: string;
  url: string;
  packagetype: string;
  python_version?: string;
  digests?: { sha256?: string };
  upload_time_iso_8601?: string;
  yanked?: boolean;
}

interface PypiDocument {
  info: { name: string; version: string; author?: string | null; maintainer?: string | null };
  urls: PypiFile[];
}

/** The file we can read the code from: an sdist, else the most portable py3 wheel. */
export function pickDistribution(files: PypiFile[]): PypiFile | undefined {
  const usable = files.filter((f) => !f.yanked);
  const sdist = usable.find((f) => f.packagetype === 'sdist' && /\.(tar\.gz|tgz|zip)$/.test(f.filename));
  if (sdist) return sdist;
  const wheels = usable.filter((f) => f.packagetype === 'bdist_wheel' && f.filename.endsWith('.whl'));
  // Wheel file names end in -{python tag}-{abi tag}-{platform tag}.whl (PEP 427).
  const score = (f: PypiFile): number => {
    const [pythonTag = '', abiTag = '', platformTag = ''] = f.filename.slice(0, -4).split('-').slice(-3);
    const py3 = pythonTag.split('.').some((t) => t.startsWith('py3') || t.startsWith('cp3'));
    return (py3 ? 4 : 0) + (abiTag === 'none' ? 2 : 0) + (platformTag === 'any' ? 1 : 0);
  };
  return wheels.sort((a, b) => score(b) - score(a))[0];
}

export async function fetchPypi(
  target: Extract<ScanTarget, { kind: 'pypi' }>,
  options: SourceOptions = {},
): Promise<Workspace> {
  const index = pypiIndexFor(options.pypiIndex);
  const base = `${index}pypi/${encodeURIComponent(target.name)}`;
  const result = await getJson<PypiDocument>({
    input: target.input,
    url: target.version ? `${base}/${encodeURIComponent(target.version)}/json` : `${base}/json`,
    signal: options.signal,
  });
  if (result.status === 'not-found') {
    if (!target.version) throw new TargetError(target.input, `package not found in ${index}`);
    const latest = await getJson<PypiDocument>({ input: target.input, url: `${base}/json`, signal: options.signal });
    if (latest.status === 'not-found') throw new TargetError(target.input, `package not found in ${index}`);
    throw new TargetError(target.input, `no version matching ==${target.version} (latest is ${latest.data.info.version})`);
  }
  const document = result.data;
  const file = pickDistribution(document.urls ?? []);
  if (!file) {
    throw new TargetError(target.input, `${document.info.name} ${document.info.version} has no sdist or wheel to scan`);
  }
  const expected = file.digests?.sha256?.toLowerCase();
  if (!expected) throw new TargetError(target.input, `${file.filename} has no published sha256`);

  const limits = { ...DEFAULT_ARCHIVE_LIMITS, ...options.limits };
  return withTempDir(options.tempRoot, async (dir) => {
    // The file name comes from the index: keep only a safe basename for our own copy.
    const archive = path.join(dir, `dist-${path.basename(file.filename).replace(/[^\w.-]/g, '_')}`);
    const download = await downloadFile({
      input: target.input,
      url: new URL(file.url, index).toString(),
      file: archive,
      maxBytes: limits.maxBytes,
      signal: options.signal,
    });
    if (download.digests.sha256 !== expected) {
      throw new TargetError(
        target.input,
        `sha256 check failed for ${file.filename}: expected ${expected}, got ${download.digests.sha256 ?? 'nothing'}`,
      );
    }
    const root = path.join(dir, 'package');
    const isWheel = file.filename.endsWith('.whl');
    if (file.filename.endsWith('.zip') || isWheel) {
      // Wheels hold the package directories at the top; zip sdists have a `name-version/` directory like tarballs.
      await extractZip(archive, root, { limits, strip: isWheel ? 0 : 1, signal: options.signal }).catch((error: unknown) => {
        throw asTargetError(target.input, error);
      });
    } else {
      await extractTarGz(archive, root, { limits, strip: 1, signal: options.signal }).catch((error: unknown) => {
        throw asTargetError(target.input, error);
      });
    }
    const maintainers = [document.info.author, document.info.maintainer].filter(
      (name): name is string => typeof name === 'string' && name.trim().length > 0,
    );
    const metadata: PackageMetadata = {
      registry: 'pypi',
      tarballUrl: file.url,
      integrity: `sha256-${Buffer.from(expected, 'hex').toString('base64')}`,
      ...(file.upload_time_iso_8601 ? { publishedAt: file.upload_time_iso_8601 } : {}),
      ...(maintainers.length > 0 ? { maintainers } : {}),
    };
    return {
      target,
      root,
      name: document.info.name,
      version: document.info.version,
      metadata,
      dispose: () => removeTempDir(dir),
    };
  });
}
