import { createHash } from 'node:crypto';
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { readTreeFileSync } from './tree-file.js';
import { parse as parseToml } from 'smol-toml';
import type { FileRole, Language, Manifest, ParseProblem, SourceFile } from './model.js';
import { createYielder } from './yielder.js';

/**
 * What a scan looks at. Decisions (documented in docs/scanning.md):
 * - Dependency trees (node_modules, site-packages, virtualenvs) are not walked at all: the scanner judges the server's
 *   own code, and dependencies are the supply-chain rules' business through the manifests.
 * - Compiled output (dist/, build/, out/, lib/ .js) is skipped when the TypeScript sources it was built from are present,
 *   so one handler is not reported twice; packages from a registry usually ship only the compiled code, which is then
 *   the code that runs and is analysed.
 * - Minified bundles keep role `bundle`: they are parsed for tools and dataflow like sources, but code facts found in
 *   them (a TLS option, a listen call) are not reported, because a bundle inlines third-party code.
 */
export interface InventoryLimits {
  maxFiles: number;
  /** Files larger than this are listed but not read. */
  maxFileBytes: number;
  /** Total bytes read across the workspace. */
  maxTotalBytes: number;
}

export const DEFAULT_INVENTORY_LIMITS: InventoryLimits = {
  maxFiles: 20_000,
  maxFileBytes: 5 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
};

export interface Inventory {
  files: SourceFile[];
  manifests: Manifest[];
  /** sha256 over the sorted (path, content digest) pairs of every file read. */
  contentHash: string;
  bytes: number;
  skippedFiles: number;
  problems: ParseProblem[];
}

export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  'bower_components',
  'site-packages',
  '__pycache__',
  '.venv',
  'venv',
  '.tox',
  '.mypy_cache',
  '.pytest_cache',
  '.ruff_cache',
  '.next',
  '.turbo',
  'coverage',
  '.nyc_output',
]);

const COMPILED_OUTPUT_DIRECTORIES = new Set(['dist', 'build', 'out', 'lib']);

const LANGUAGE_BY_EXTENSION: Record<string, Language> = {
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'typescript',
  '.py': 'python',
};

/** Non-code files worth reading as text: configs and docs where secrets and install scripts live. */
const TEXT_EXTENSIONS = new Set([
  '.json',
  '.jsonc',
  '.yaml',
  '.yml',
  '.toml',
  '.ini',
  '.cfg',
  '.conf',
  '.env',
  '.txt',
  '.md',
  '.sh',
  '.bash',
  '.ps1',
  '.bat',
  '.cmd',
  '.properties',
  '.xml',
  '.html',
  '.pem',
  '.key',
]);

const TEXT_FILE_NAMES = new Set(['Dockerfile', 'Makefile', '.npmrc', '.pypirc', '.netrc', 'Procfile', 'id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519']);

const LOCK_FILES = new Set(['package-lock.json', 'yarn.lock', 'pnpm-lock.yaml', 'poetry.lock', 'uv.lock', 'Pipfile.lock']);

interface Candidate {
  relPath: string;
  absPath: string;
  size: number;
}

export async function inventoryWorkspace(
  root: string,
  limits: InventoryLimits = DEFAULT_INVENTORY_LIMITS,
  signal?: AbortSignal,
): Promise<Inventory> {
  const candidates: Candidate[] = [];
  const problems: ParseProblem[] = [];
  const tick = createYielder(signal);
  let skippedFiles = 0;

  // Breadth-first, lstat-based walk: symlinks are never followed, so a workspace cannot lead the scan out of itself.
  const queue: string[] = [''];
  while (queue.length > 0) {
    await tick();
    const relDir = queue.shift()!;
    let entries;
    try {
      entries = readdirSync(path.join(root, relDir), { withFileTypes: true });
    } catch (error) {
      problems.push({ file: relDir || '.', message: `cannot read directory: ${(error as Error).message}`, kind: 'unreadable' });
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const relPath = relDir ? `${relDir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (SKIPPED_DIRECTORIES.has(entry.name)) continue;
        queue.push(relPath);
      } else if (entry.isFile()) {
        if (candidates.length >= limits.maxFiles) {
          skippedFiles++;
          continue;
        }
        const absPath = path.join(root, relPath);
        const stats = lstatSync(absPath);
        candidates.push({ relPath, absPath, size: stats.size });
      } else {
        skippedFiles++;
      }
    }
  }
  if (skippedFiles > 0 && candidates.length >= limits.maxFiles) {
    problems.push({ file: '.', message: `more than ${limits.maxFiles} files: ${skippedFiles} not scanned`, kind: 'over-limit' });
  }

  const hasTypeScriptSources = candidates.some(
    (candidate) => isTypeScriptSource(candidate.relPath) && !isUnderCompiledOutput(candidate.relPath),
  );

  const files: SourceFile[] = [];
  const manifests: Manifest[] = [];
  const digests: string[] = [];
  let bytes = 0;

  for (const candidate of candidates) {
    await tick();
    const name = path.posix.basename(candidate.relPath);
    const extension = path.posix.extname(name).toLowerCase();
    const language = isDeclarationFile(name) ? undefined : LANGUAGE_BY_EXTENSION[extension];
    const isText = language !== undefined || TEXT_EXTENSIONS.has(extension) || TEXT_FILE_NAMES.has(name) || name.startsWith('.env');
    let role: FileRole = language ? 'source' : 'other';
    if (language && hasTypeScriptSources && language === 'javascript' && isUnderCompiledOutput(candidate.relPath)) {
      role = 'other';
    }

    const file: SourceFile = { path: candidate.relPath, absPath: candidate.absPath, role, size: candidate.size };
    if (language) file.language = language;

    if (!isText || LOCK_FILES.has(name)) {
      digests.push(`${candidate.relPath}\0size:${candidate.size}`);
      files.push(file);
      continue;
    }
    if (candidate.size > limits.maxFileBytes || bytes + candidate.size > limits.maxTotalBytes) {
      skippedFiles++;
      problems.push({ file: candidate.relPath, message: `not read: ${candidate.size} bytes is over the size limit`, kind: 'over-limit' });
      digests.push(`${candidate.relPath}\0size:${candidate.size}`);
      file.role = 'other';
      files.push(file);
      continue;
    }

    // Synchronous on purpose: one promise and one event-loop turn per file cost more than the read (tree-file.ts).
    let buffer: Buffer;
    try {
      buffer = readTreeFileSync(candidate.absPath, limits.maxFileBytes);
    } catch (error) {
      // Swapped for a link, a FIFO or a bigger file since the walk saw it: reported, never followed or waited on.
      skippedFiles++;
      problems.push({ file: candidate.relPath, message: `not read: ${(error as Error).message}`, kind: 'unreadable' });
      digests.push(`${candidate.relPath}\0unreadable`);
      file.role = 'other';
      files.push(file);
      continue;
    }
    bytes += buffer.length;
    digests.push(`${candidate.relPath}\0${createHash('sha256').update(buffer).digest('hex')}`);
    if (buffer.subarray(0, 8192).includes(0)) {
      file.role = 'other';
      files.push(file);
      continue;
    }
    file.text = buffer.toString('utf8');
    if (language && file.role === 'source' && looksMinified(file.text)) file.role = 'bundle';

    const manifest = readManifest(candidate.relPath, name, file.text, problems);
    if (manifest) {
      manifests.push(manifest);
      if (file.role === 'other') file.role = 'manifest';
    } else if (!language && isConfigFile(name)) {
      file.role = 'config';
    }
    files.push(file);
  }

  digests.sort();
  const contentHash = createHash('sha256').update(digests.join('\n')).digest('hex');
  return { files, manifests, contentHash, bytes, skippedFiles, problems };
}

/** Type declarations of every flavour (.d.ts, .d.mts, .d.cts) hold no runtime code: never analysed. */
export function isDeclarationFile(relPath: string): boolean {
  return /\.d\.[cm]?ts$/.test(relPath);
}

function isTypeScriptSource(relPath: string): boolean {
  return /\.(ts|mts|cts|tsx)$/.test(relPath) && !isDeclarationFile(relPath);
}

function isUnderCompiledOutput(relPath: string): boolean {
  return relPath.split('/').some((segment) => COMPILED_OUTPUT_DIRECTORIES.has(segment));
}

/** Minified code: very long lines on average, or a `.min.` file name. */
export function looksMinified(text: string): boolean {
  if (text.length < 2_000) return false;
  let lines = 1;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines++;
  return text.length / lines > 500;
}

function isConfigFile(name: string): boolean {
  return /\.(json|jsonc|ya?ml|toml|ini|cfg|conf|env)$/.test(name) || name.startsWith('.env') || TEXT_FILE_NAMES.has(name);
}

function readManifest(relPath: string, name: string, text: string, problems: ParseProblem[]): Manifest | undefined {
  try {
    switch (name) {
      case 'package.json':
        return { kind: 'package.json', path: relPath, data: JSON.parse(text) };
      case 'pyproject.toml':
        return { kind: 'pyproject.toml', path: relPath, data: parseToml(text) };
      case 'setup.py':
        return { kind: 'setup.py', path: relPath, data: text };
      case 'server.json':
        return { kind: 'server.json', path: relPath, data: JSON.parse(text) };
      default:
        if (/^requirements.*\.txt$/.test(name)) return { kind: 'requirements.txt', path: relPath, data: text };
        return undefined;
    }
  } catch (error) {
    problems.push({ file: relPath, message: `manifest does not parse: ${(error as Error).message}`, kind: 'unreadable' });
    return undefined;
  }
}
