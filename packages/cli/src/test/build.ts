import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, for tests that run the built binaries. */
export const REPO = resolve(fileURLToPath(new URL('../../../..', import.meta.url)));

const OUTPUT = { cli: 'packages/cli/dist/index.js', daemon: 'packages/daemon/dist/main.js' } as const;

function newerThan(dir: string, file: string): boolean {
  return execFileSync('find', [dir, '-type', 'f', '-newer', file, '-print', '-quit'], { encoding: 'utf8' }).trim() !== '';
}

/**
 * Builds core and the given workspaces with tsup unless each dist is newer than every source file it bundles (core's
 * and its own). Builds are serialised across test files and runs with a lock, since they share dist/.
 */
export function ensureBuilt(workspaces: ReadonlyArray<keyof typeof OUTPUT>): void {
  const stale = workspaces.some((workspace) => {
    const output = join(REPO, OUTPUT[workspace]);
    return (
      !existsSync(output) ||
      !existsSync(join(REPO, 'packages/core/dist/index.js')) ||
      statSync(join(REPO, 'packages/core/dist/index.js')).mtimeMs > statSync(output).mtimeMs ||
      newerThan(join(REPO, 'packages/core/src'), output) ||
      newerThan(join(REPO, `packages/${workspace}/src`), output)
    );
  });
  if (!stale) return;
  const builds = ['npm run build -w @svc/core >/dev/null', ...workspaces.map((workspace) => `npm run build -w @svc/${workspace} >/dev/null`)];
  execFileSync('flock', ['/tmp/svc-build.lock', 'sh', '-c', builds.join(' && ')], { cwd: REPO, stdio: 'inherit' });
}
