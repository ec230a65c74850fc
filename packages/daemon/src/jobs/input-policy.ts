// Which scan inputs a remote caller may give the daemon. DESIGN.md: "A remote caller must never make the daemon read
// its own disk": local paths, config files and file:// git URLs are accepted only inside SVC_SCAN_ROOTS. The submit
// route checks the input before queueing; the worker checks it again, and checks every target a client config expands
// to, since a config inside the roots may name a project anywhere.

import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseTarget, TargetError, urlCarriesCredentials, type ScanTarget } from '@svc/core';

export type InputCheck = { ok: true; target: ScanTarget } | { ok: false; message: string };

const NO_ROOTS = 'local paths cannot be scanned: this daemon has no SVC_SCAN_ROOTS (the operator sets the folders it may scan)';
// One message for "outside the roots" whether or not the path exists, so a caller cannot probe the daemon's disk.
const OUTSIDE_ROOTS = 'local paths must be inside SVC_SCAN_ROOTS (the folders the operator allows); this one is not';
const RELATIVE = 'a local path must be absolute and inside SVC_SCAN_ROOTS (the daemon has no working directory of yours)';
const UNSUPPORTED = 'not a scan input the daemon takes: give a package spec (npm:, pypi:), a git or https URL, or an absolute path inside SVC_SCAN_ROOTS';
const BAD_FILE_URL = 'a file:// git URL must be file:///absolute/path inside SVC_SCAN_ROOTS, without a host, query or . and .. segments';

/**
 * Classifies a scan input as the daemon sees it. Unlike the CLI's parseTarget, a bare word is always a package spec
 * (it is never looked up relative to the daemon's working directory), `~` means nothing, and the roots check runs on
 * the resolved path before anything under it is read. An accepted local target carries its real path, so the scan
 * reads exactly the path that was checked.
 */
export function checkScanInput(input: string, scanRoots: readonly string[]): InputCheck {
  const raw = input.trim();
  if (/^(git\+)?file:/i.test(raw)) return checkFileGitUrl(raw, input, scanRoots);
  // These never reach parseTarget's stat of a local path: npm:/pypi: specs and scheme:// URLs are decided (or refused)
  // before it, and npm-package-arg's file/directory/git types are refused by core's npmTarget.
  if (raw === '' || /^(npm|pypi):/i.test(raw) || /^[a-z][a-z0-9+.-]+:\/\//i.test(raw)) return withoutUrlCredentials(parse(raw, input));
  if (/^(github|gitlab|bitbucket|gist):/i.test(raw)) {
    // A shorthand core could not parse would fall through to a local path lookup: only plain owner/repo is passed on.
    if (!/^[a-z]+:[\w.-]+\/[\w.-]+(#\S*)?$/i.test(raw) || /(^|[:/])\.\.?(\/|#|$)/.test(raw)) return { ok: false, message: UNSUPPORTED };
    const parsed = parse(raw, input);
    return parsed.ok && parsed.target.kind !== 'git' ? { ok: false, message: UNSUPPORTED } : parsed;
  }
  if (/^[a-z][a-z0-9+.-]+:/i.test(raw)) return { ok: false, message: UNSUPPORTED };
  if (path.isAbsolute(raw)) {
    const local = insideRoots(raw, scanRoots);
    if (!local.ok) return local;
    const parsed = parse(local.real, input);
    return parsed.ok ? { ok: true, target: { ...parsed.target, input: raw } } : parsed;
  }
  if (looksLikePath(raw)) return { ok: false, message: scanRoots.length === 0 ? NO_ROOTS : RELATIVE };
  const parsed = parse(`npm:${raw}`, input);
  return parsed.ok ? { ok: true, target: { ...parsed.target, input: raw } } : parsed;
}

/**
 * Checks one target a client config expanded to (inside the worker, before it is fetched). Local projects and file://
 * repositories must be inside the roots; registry packages, remote repositories and endpoints pass.
 */
export function checkExpandedTarget(target: ScanTarget, scanRoots: readonly string[]): InputCheck {
  switch (target.kind) {
    case 'directory':
    case 'config': {
      if (!path.isAbsolute(target.path)) return { ok: false, message: scanRoots.length === 0 ? NO_ROOTS : RELATIVE };
      const local = insideRoots(target.path, scanRoots);
      return local.ok ? { ok: true, target: { ...target, path: local.real } } : local;
    }
    case 'git': {
      if (/^(git\+)?file:/i.test(target.url)) {
        const checked = checkFileGitUrl(target.ref ? `${target.url}#${target.ref}` : target.url, target.input, scanRoots);
        return checked.ok && checked.target.kind === 'git' ? { ok: true, target: { ...target, url: checked.target.url } } : checked;
      }
      // git also takes a bare path as a local repository; specs.ts never produces one, but refuse it if it ever does.
      if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(target.url) && !/^[^/\\]+@[^/\\:]+:/.test(target.url)) {
        return { ok: false, message: scanRoots.length === 0 ? NO_ROOTS : RELATIVE };
      }
      return { ok: true, target };
    }
    case 'npm':
    case 'pypi':
    case 'remote':
      return { ok: true, target };
  }
}

/**
 * A remote endpoint's credentials go in the submission's `bearer_token`, which is held in memory only: an input is
 * stored with the scan and shown to whoever may read it, so a URL carrying a password or a token is refused.
 */
function withoutUrlCredentials(check: InputCheck): InputCheck {
  if (!check.ok || check.target.kind !== 'remote' || !URL.canParse(check.target.url) || !urlCarriesCredentials(new URL(check.target.url))) return check;
  return { ok: false, message: 'the URL carries credentials (a user name, a password or a token-like query parameter), which would be stored with the scan: send the token as bearer_token instead' };
}

function parse(raw: string, input: string): InputCheck {
  try {
    return { ok: true, target: parseTarget(raw) };
  } catch (error) {
    if (error instanceof TargetError) return { ok: false, message: error.reason };
    return { ok: false, message: `cannot read the input ${JSON.stringify(input)}` };
  }
}

/** Mirrors core's parseTarget: `@scope/name` is a package; a separator, leading dot or tilde, drive letter or .json is a path. */
function looksLikePath(input: string): boolean {
  if (input.startsWith('@')) return false;
  return /^(\.|~|[a-zA-Z]:)/.test(input) || /[\\/]/.test(input) || /\.jsonc?$/i.test(input);
}

function checkFileGitUrl(raw: string, input: string, scanRoots: readonly string[]): InputCheck {
  if (scanRoots.length === 0) return { ok: false, message: NO_ROOTS };
  const hash = raw.indexOf('#');
  const urlPart = (hash === -1 ? raw : raw.slice(0, hash)).replace(/^git\+/i, '');
  const ref = hash === -1 ? '' : raw.slice(hash);
  // `file:relative` means ssh to a host named "file" to git, and a URL's own `..` handling differs from the OS's:
  // only the plain file:///absolute form is taken, and the URL handed to git is rebuilt from the checked real path.
  if (!/^file:\/\/(localhost)?\//i.test(urlPart) || /\/\.\.?(\/|$)/.test(urlPart) || !URL.canParse(urlPart)) {
    return { ok: false, message: BAD_FILE_URL };
  }
  const url = new URL(urlPart);
  if (url.search !== '' || (url.hostname !== '' && url.hostname !== 'localhost')) return { ok: false, message: BAD_FILE_URL };
  let local: string;
  try {
    local = fileURLToPath(url);
  } catch {
    return { ok: false, message: BAD_FILE_URL };
  }
  const checked = insideRoots(local, scanRoots);
  if (!checked.ok) return checked;
  if (borrowsFromOutside(checked.real, scanRoots)) return { ok: false, message: BORROWED };
  const parsed = parse(`${pathToFileURL(checked.real).href}${ref}`, input);
  return parsed.ok ? { ok: true, target: { ...parsed.target, input: input.trim() } } : parsed;
}

type RootCheck = { ok: true; real: string } | { ok: false; message: string };

const BORROWED = 'this repository reads objects from outside SVC_SCAN_ROOTS (git alternates or a .git file pointing elsewhere); it is not scanned';

/** A small text file of a repository, or undefined (missing, a link, not a regular file, too big). */
function smallFile(file: string): string | undefined {
  try {
    const stats = lstatSync(file);
    return stats.isFile() && stats.size <= 64 * 1024 ? readFileSync(file, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether cloning the repository at `repo` would read objects outside the roots: git serves the objects of every
 * directory listed in `objects/info/alternates` (and theirs, in turn), and a `.git` file sends git to another folder.
 */
function borrowsFromOutside(repo: string, scanRoots: readonly string[], depth = 0): boolean {
  if (depth > 4) return true;
  const gitFile = smallFile(path.join(repo, '.git'));
  if (gitFile !== undefined) {
    const target = /^gitdir:\s*(.+)$/m.exec(gitFile)?.[1]?.trim();
    if (target === undefined) return true;
    const gitDir = path.resolve(repo, target);
    return !insideRoots(gitDir, scanRoots).ok || borrowsFromOutside(gitDir, scanRoots, depth + 1);
  }
  for (const objects of [path.join(repo, 'objects'), path.join(repo, '.git', 'objects')]) {
    const alternates = smallFile(path.join(objects, 'info', 'alternates'));
    if (alternates === undefined) continue;
    for (const line of alternates.split('\n').map((entry) => entry.trim()).filter((entry) => entry && !entry.startsWith('#'))) {
      const borrowed = path.resolve(objects, line);
      if (!insideRoots(borrowed, scanRoots).ok || borrowsFromOutside(path.dirname(borrowed), scanRoots, depth + 1)) return true;
    }
  }
  return false;
}

/** Resolves symlinks and `..` the way the OS will when the path is opened, then requires it under a root's real path. */
function insideRoots(absolute: string, scanRoots: readonly string[]): RootCheck {
  if (scanRoots.length === 0) return { ok: false, message: NO_ROOTS };
  const real = realPathOrNearest(absolute);
  const inside = scanRoots.some((root) => isWithin(real, realPathOrNearest(root)));
  return inside ? { ok: true, real } : { ok: false, message: OUTSIDE_ROOTS };
}

/**
 * The real path; for a path that does not exist, the real path of its nearest existing ancestor plus the rest, so a
 * missing file behind a symlink that leaves the roots is judged (and worded) like any other path outside them.
 */
function realPathOrNearest(absolute: string): string {
  const rest: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      return path.join(realpathSync.native(current), ...rest);
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return path.resolve(absolute);
      rest.unshift(path.basename(current));
      current = parent;
    }
  }
}

function isWithin(candidate: string, root: string): boolean {
  const fold = (value: string) => (process.platform === 'win32' ? value.toLowerCase() : value);
  const relative = path.relative(fold(root), fold(candidate));
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}
