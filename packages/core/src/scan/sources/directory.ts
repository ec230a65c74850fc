// Local directories are scanned in place: nothing is copied and dispose() has nothing to remove.

import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import type { ScanTarget, Workspace } from '../model.js';
import { readTreeFile } from '../tree-file.js';
import { TargetError } from './errors.js';

export async function fetchDirectory(target: Extract<ScanTarget, { kind: 'directory' }>): Promise<Workspace> {
  const root = path.resolve(target.path);
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) throw new TargetError(target.input, 'no such directory');
  const described = await describeProject(root);
  return {
    target,
    root,
    name: described.name ?? path.basename(root),
    ...(described.version ? { version: described.version } : {}),
    dispose: async () => undefined,
  };
}

/** Name and version from the project's own manifest (package.json, else pyproject.toml), when it declares them. */
export async function describeProject(root: string): Promise<{ name?: string; version?: string }> {
  // Read like every file of the tree: a manifest that is a link out of it, a FIFO or /dev/zero names nothing.
  const packageJson = await readTreeFile(path.join(root, 'package.json')).catch(() => undefined);
  if (packageJson !== undefined) {
    try {
      const data = JSON.parse(packageJson) as { name?: unknown; version?: unknown };
      return pickStrings(data.name, data.version);
    } catch {
      // A broken package.json is the inventory's problem to report; the directory name will do here.
    }
  }
  const pyproject = await readTreeFile(path.join(root, 'pyproject.toml')).catch(() => undefined);
  if (pyproject !== undefined) {
    try {
      const data = parseToml(pyproject) as { project?: { name?: unknown; version?: unknown } };
      return pickStrings(data.project?.name, data.project?.version);
    } catch {
      // As above.
    }
  }
  return {};
}

function pickStrings(name: unknown, version: unknown): { name?: string; version?: string } {
  return {
    ...(typeof name === 'string' && name ? { name } : {}),
    ...(typeof version === 'string' && version ? { version } : {}),
  };
}
