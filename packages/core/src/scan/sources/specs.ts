// Package and repository spec strings → targets. Shared by parseTarget (what the user typed) and config expansion
// (what `npx`, `uvx` or `pipx` were told to run).

import npa from 'npm-package-arg';
import type { ScanTarget } from '../model.js';
import { TargetError } from './errors.js';

type NpmTarget = Extract<ScanTarget, { kind: 'npm' }>;
type PypiTarget = Extract<ScanTarget, { kind: 'pypi' }>;
type GitTarget = Extract<ScanTarget, { kind: 'git' }>;

function npaOrThrow(spec: string, input: string): npa.Result {
  try {
    return npa(spec);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new TargetError(input, `not a valid package spec (${message})`, { cause: error });
  }
}

/** `name`, `name@1.2.3`, `@scope/name@^1`, `name@beta`: registry specs only. */
export function npmTarget(spec: string, input: string): NpmTarget {
  const parsed = npaOrThrow(spec, input);
  if (parsed.type !== 'version' && parsed.type !== 'range' && parsed.type !== 'tag') {
    throw new TargetError(input, `not an npm registry package spec (${parsed.type})`);
  }
  if (!parsed.name) throw new TargetError(input, 'missing package name');
  const rawSpec = parsed.rawSpec === '*' || parsed.rawSpec === '' ? 'latest' : parsed.rawSpec;
  return { kind: 'npm', input, name: parsed.name, spec: rawSpec };
}

// PEP 508 names: ASCII letters/digits, with . _ - allowed inside.
const PEP508_NAME = /^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$/i;

/** PEP 503 normalised form, which every index accepts in URLs. */
export function normalisePypiName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/** `name`, `name==1.2`, `name[extra]==1.2`, uv's `name@1.2` / `name@latest`. Only exact versions can be fetched. */
export function pypiTarget(spec: string, input: string): PypiTarget {
  const match = /^([^\s[=@<>!~;]+)(\[[^\]]*\])?(.*)$/s.exec(spec.trim());
  const name = match?.[1];
  if (!match || !name || !PEP508_NAME.test(name)) throw new TargetError(input, `not a valid PyPI project name (PEP 508): ${spec}`);
  const rest = (match[3] ?? '').trim();
  const exact = /^(?:==|@)\s*([A-Za-z0-9._+!-]+)$/.exec(rest);
  if (rest !== '' && !exact) throw new TargetError(input, `only exact versions (name==version) can be fetched, not ${rest}`);
  const version = exact?.[1] === 'latest' ? undefined : exact?.[1];
  return { kind: 'pypi', input, name: normalisePypiName(name), ...(version ? { version } : {}) };
}

function decodeRef(text: string, input: string): string {
  try {
    return decodeURIComponent(text);
  } catch (error) {
    throw new TargetError(input, 'the #ref after the repository URL is not valid percent-encoding', { cause: error });
  }
}

/** Split `url#ref`; npm-style `#semver:` ranges need tag listing we do not do. */
function splitRef(url: string, input: string): { url: string; ref?: string } {
  const hash = url.indexOf('#');
  if (hash === -1) return { url };
  const ref = decodeRef(url.slice(hash + 1), input);
  if (ref.startsWith('semver:')) throw new TargetError(input, 'git #semver: ranges are not supported; name a branch, tag or commit');
  return { url: url.slice(0, hash), ...(ref ? { ref } : {}) };
}

/**
 * Git specs: `git+https://`, `git+ssh://` (also scp-like), `git://`, `ssh://`, `file://` and `git+file://` (bare repositories),
 * forge shorthands (`github:owner/repo#ref`, `gitlab:`, `bitbucket:`) and https URLs of forge repositories.
 * Returns undefined when the string is not a git spec at all.
 */
export function gitTarget(spec: string, input: string): GitTarget | undefined {
  if (/^(git\+)?file:/i.test(spec)) {
    const { url, ref } = splitRef(spec.replace(/^git\+/i, ''), input);
    return { kind: 'git', input, url, ...(ref ? { ref } : {}) };
  }
  // npm-package-arg handles `git+ssh://` (including scp-like `git+ssh://git@host:path`) but refuses plain `ssh://`.
  if (/^ssh:\/\//i.test(spec)) {
    const { url, ref } = splitRef(spec, input);
    return { kind: 'git', input, url, ...(ref ? { ref } : {}) };
  }
  if (!/^(git\+[a-z]+:|git:|github:|gitlab:|bitbucket:|gist:|https?:)/i.test(spec)) return undefined;
  let parsed: npa.Result;
  try {
    parsed = npa(spec);
  } catch {
    return undefined;
  }
  if (parsed.type !== 'git') return undefined;
  const url = parsed.hosted ? hostedUrl(parsed, spec) : parsed.fetchSpec;
  if (!url) return undefined;
  const ref = parsed.gitCommittish ?? undefined;
  if (parsed.gitRange) throw new TargetError(input, 'git #semver: ranges are not supported; name a branch, tag or commit');
  return { kind: 'git', input, url, ...(ref ? { ref } : {}) };
}

/** The part of hosted-git-info's object we use (its @types in npm-package-arg's typings stop at the fields). */
interface HostedGitInfo {
  https(options: { noCommittish?: boolean; noGitPlus?: boolean }): string | undefined;
}

// Keep the transport the user chose (ssh keys for private repos); shorthands and https URLs clone over https.
function hostedUrl(parsed: npa.Result, spec: string): string | undefined {
  if (/^git\+ssh:/i.test(spec) && parsed.fetchSpec) return parsed.fetchSpec;
  const hosted = parsed.hosted as HostedGitInfo | undefined;
  return hosted?.https({ noCommittish: true, noGitPlus: true }) ?? parsed.fetchSpec ?? undefined;
}
