// Scan targets: what the user typed → ScanTarget (parseTarget) → one target per server for client configs
// (expandTarget) → files on disk (fetchTarget). The accepted forms are documented in docs/targets.md.

import { statSync, type Stats } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ScanTarget, Workspace } from './model.js';
import { expandConfig, explainNotConfig, recogniseConfig } from './sources/config.js';
import { fetchDirectory } from './sources/directory.js';
import { TargetError } from './sources/errors.js';
import { fetchGit } from './sources/git.js';
import { fetchNpm } from './sources/npm.js';
import type { SourceOptions } from './sources/options.js';
import { fetchPypi } from './sources/pypi.js';
import { gitTarget, npmTarget, pypiTarget } from './sources/specs.js';

export { TargetError } from './sources/errors.js';
export type { GitNetworkPolicy, RemoteOptions, SourceOptions } from './sources/options.js';
export { removeAllTempDirs, removeAllTempDirsSync } from './sources/temp.js';

function expandHome(input: string): string {
  return input === '~' || input.startsWith('~/') || input.startsWith('~\\') ? path.join(os.homedir(), input.slice(1)) : input;
}

// `@scope/name` is a package; anything else with a separator, a leading dot or tilde, or a drive letter is a path.
function looksLikePath(input: string): boolean {
  if (input.startsWith('@')) return false;
  return /^(\.|~|[a-zA-Z]:)/.test(input) || /[\\/]/.test(input) || /\.jsonc?$/i.test(input);
}

/** The local path's kind, undefined when no such path can exist (a NUL byte, a name longer than the system allows). */
function statLocal(raw: string, local: string): Stats | undefined {
  if (local.includes('\0')) return undefined;
  try {
    return statSync(local, { throwIfNoEntry: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENAMETOOLONG' || code === 'ENOTDIR') return undefined;
    throw new TargetError(raw, `cannot read it (${code ?? 'unknown error'})`, { cause: error });
  }
}

/**
 * Parses one scan input. Explicit prefixes (`npm:`, `pypi:`, git and http URLs) decide first; then an existing local
 * path (a directory, or an MCP client config file); then a bare npm package spec. Throws TargetError when the input
 * is none of these.
 */
export function parseTarget(input: string, cwd: string = process.cwd()): ScanTarget {
  const raw = input.trim();
  if (raw === '') throw new TargetError(input, 'empty target');
  if (/^npm:/i.test(raw)) return npmTarget(raw.slice(4), raw);
  if (/^pypi:/i.test(raw)) return pypiTarget(raw.slice(5), raw);
  const git = gitTarget(raw, raw);
  if (git) return git;
  if (/^https?:\/\//i.test(raw)) {
    if (!URL.canParse(raw)) throw new TargetError(raw, 'not a valid URL');
    return { kind: 'remote', input: raw, url: raw };
  }
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(raw)) throw new TargetError(raw, `unsupported URL scheme ${raw.slice(0, raw.indexOf(':'))}:`);

  const local = path.resolve(cwd, expandHome(raw));
  const info = statLocal(raw, local);
  if (info?.isDirectory()) return { kind: 'directory', input: raw, path: local };
  if (info?.isFile()) {
    if (recogniseConfig(local)) return { kind: 'config', input: raw, path: local };
    throw new TargetError(raw, explainNotConfig(local));
  }
  if (info) throw new TargetError(raw, 'not a directory or a file');
  if (looksLikePath(raw)) throw new TargetError(raw, /\.jsonc?$/i.test(raw) ? 'no such file' : 'no such directory');
  return npmTarget(raw, raw);
}

/** A config target becomes one target per configured server; every other target stands for itself. */
export async function expandTarget(target: ScanTarget): Promise<ScanTarget[]> {
  if (target.kind === 'config') return expandConfig(target);
  return [target];
}

/** Whether fetchTarget can produce files for a target: remote endpoints are listed live instead (remote/scan.ts). */
export function isScannable(target: ScanTarget): boolean {
  return target.kind !== 'remote' && target.kind !== 'config';
}

/** Fetches a target's files into a Workspace; the caller must dispose() it. */
export async function fetchTarget(target: ScanTarget, options: SourceOptions = {}): Promise<Workspace> {
  options.signal?.throwIfAborted();
  switch (target.kind) {
    case 'directory':
      return fetchDirectory(target);
    case 'npm':
      return fetchNpm(target, options);
    case 'pypi':
      return fetchPypi(target, options);
    case 'git':
      return fetchGit(target, options);
    case 'remote':
      throw new TargetError(target.input, 'a remote endpoint has no files: it is listed live (scanTarget)');
    case 'config':
      throw new TargetError(target.input, 'a client config is expanded into its servers (expandTarget) before fetching');
  }
}
