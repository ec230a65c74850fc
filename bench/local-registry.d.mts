export interface RegistryEntry {
  name: string;
  version: string;
  metadata: { integrity: string; publishedAt?: string };
}
export declare function tarballFileName(integrity: string): string;
export declare function startLocalRegistry(entries: readonly RegistryEntry[], tarballDir: string): Promise<{ url: string; close: () => Promise<void> }>;
