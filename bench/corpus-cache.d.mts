import type { PackageMetadata, Workspace } from '@svc/core';

export interface CorpusPackage {
  name: string;
  version: string;
  note?: string;
}
export interface CachedPackage extends CorpusPackage {
  root: string;
  metadata?: PackageMetadata;
}
export declare function cacheKey(entry: { name: string; version: string }): string;
export declare function readCorpus(corpusPath: string): Promise<CorpusPackage[]>;
export declare function ensureCorpus(options: {
  packages: readonly CorpusPackage[];
  cacheDir: string;
  core: { fetchTarget: (...args: never[]) => Promise<Workspace>; parseTarget: (input: string) => unknown };
  sourceOptions?: Record<string, unknown>;
  log?: (message: string) => void;
  warn?: (message: string) => void;
}): Promise<{ ready: CachedPackage[]; failed: Array<CorpusPackage & { error: string }> }>;
export declare function cachedWorkspace(entry: CachedPackage): Workspace;
