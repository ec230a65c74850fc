// Builds SourceFile objects from a directory, as the inventory would, for the Python analyzer and extractor tests.
import { mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { SourceFile } from '../../model.js';

export async function pythonSources(root: string): Promise<SourceFile[]> {
  const files: SourceFile[] = [];
  async function walk(directory: string): Promise<void> {
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      const absPath = path.join(directory, entry.name);
      if (entry.isDirectory()) await walk(absPath);
      else if (entry.name.endsWith('.py')) {
        const text = await readFile(absPath, 'utf8');
        files.push({
          path: path.relative(root, absPath).split(path.sep).join('/'),
          absPath,
          language: 'python',
          role: 'source',
          size: (await stat(absPath)).size,
          text,
        });
      }
    }
  }
  await walk(root);
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

/** Writes `files` (relative path → text) into a fresh temp dir and returns its path; the caller removes it. */
export async function writeProject(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'svc-py-'));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), text);
  }
  return root;
}
