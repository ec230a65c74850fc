// What the manifest and the registry say about a package whose name imitates a well-known one: the signs that it is
// a squat rather than an honest fork (install scripts, a repository of another project or none, a first release
// days before the scan, few versions). Used by typosquat-package to raise severity and confidence.
import type { Manifest, PackageMetadata } from '../../scan/model.js';
import { installHooksOf } from './install-hooks.js';

/** A first release this recent, relative to the scan's clock, is a package nobody has vetted yet. */
const RECENT_DAYS = 30;
/** This many versions or fewer: a package without a history. */
const FEW_VERSIONS = 3;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface SquatSignal {
  /** `strong` signs are what squats do (run code on install, point at another project, appear days ago); `supporting` ones are merely common among them. */
  weight: 'strong' | 'supporting';
  text: string;
}

export interface SquatInputs {
  /** The well-known package the name imitates. */
  known: string;
  /** The package's own manifest (package.json, pyproject.toml). */
  manifest: Manifest | undefined;
  metadata: PackageMetadata | undefined;
  /** The scan's clock; without it the age is not judged. */
  now: Date | undefined;
}

/**
 * The project a known package belongs to, as it appears in repository URLs: the scope's owner for a scoped name (a
 * bare `sdk` or `mcp` would match anything), else the name itself.
 */
function projectWord(known: string): string {
  return collapse(/^@([^/]+)\//.exec(known)?.[1] ?? known);
}

const collapse = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/** `git+https://github.com/o/r.git`, `github:o/r`, `{ url }`, pyproject `[project.urls]`: the repository a manifest names. */
export function repositoryOf(manifest: Manifest | undefined): string | undefined {
  const data = manifest?.data as { repository?: unknown; project?: { urls?: Record<string, unknown> } } | null | undefined;
  if (!data || typeof data !== 'object') return undefined;
  const repository = data.repository;
  if (typeof repository === 'string') return repository;
  if (repository && typeof repository === 'object' && typeof (repository as { url?: unknown }).url === 'string') return (repository as { url: string }).url;
  const urls = data.project?.urls;
  if (urls && typeof urls === 'object') {
    const entry = Object.entries(urls).find(([key, value]) => /^(repository|source|source code|code|github)$/i.test(key) && typeof value === 'string');
    if (entry) return entry[1] as string;
  }
  return undefined;
}

/** The path of a repository URL (owner and name), without scheme, host, `.git` or fragment. */
function repositoryPath(url: string): string {
  return url
    .replace(/^git\+/, '')
    .replace(/^[a-z]+:(\/\/)?([^@/]+@)?[^/:]+[/:]/i, '')
    .replace(/\.git$|#.*$/g, '');
}

export function squatSignals({ known, manifest, metadata, now }: SquatInputs): SquatSignal[] {
  const signals: SquatSignal[] = [];
  if (manifest?.kind === 'package.json') {
    const hooks = installHooksOf(manifest.data);
    if (hooks.length) signals.push({ weight: 'strong', text: `runs code on install (${hooks.join('; ').slice(0, 160)})` });
  }
  const repository = repositoryOf(manifest) ?? metadata?.repository;
  if (repository === undefined) signals.push({ weight: 'supporting', text: 'no source repository' });
  else {
    const path = collapse(repositoryPath(repository));
    if (!path.includes(projectWord(known))) {
      signals.push({ weight: 'strong', text: `repository ${repository.slice(0, 120)} is another project than ${known}'s` });
    }
  }
  const versions = metadata?.versionCount;
  const first = metadata?.firstPublishedAt ?? (versions === 1 ? metadata?.publishedAt : undefined);
  const firstTime = first === undefined ? NaN : Date.parse(first);
  if (now && Number.isFinite(firstTime)) {
    const days = Math.floor((now.getTime() - firstTime) / DAY_MS);
    if (days >= 0 && days < RECENT_DAYS) signals.push({ weight: 'strong', text: `first published ${days} day${days === 1 ? '' : 's'} before the scan (${first!.slice(0, 10)})` });
  }
  if (versions !== undefined && versions <= FEW_VERSIONS) signals.push({ weight: 'supporting', text: `${versions} version${versions === 1 ? '' : 's'} published` });
  return signals;
}

/** Strong signs count double: one of them, or two supporting ones, make the squat likely. */
export function signalScore(signals: readonly SquatSignal[]): number {
  return signals.reduce((score, signal) => score + (signal.weight === 'strong' ? 2 : 1), 0);
}
