import type { Manifest } from './model.js';

export type Ecosystem = 'npm' | 'pypi';

export interface Dependency {
  name: string;
  ecosystem: Ecosystem;
  manifest: Manifest;
  /** Declared for development only (devDependencies, PEP 735 dependency groups): not part of what runs. */
  dev: boolean;
}

/** PEP 503: PyPI treats `Mcp_Server.Fetch` and `mcp-server-fetch` as one project. */
export const normalizePypi = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

/** PEP 508 requirement → project name (`mcp[cli]>=1.2; python_version>'3.9'` → `mcp`). */
function requirementName(requirement: string): string | undefined {
  const line = requirement.trim();
  if (line === '' || line.startsWith('#') || line.startsWith('-') || /^[a-z+]+:\/\//i.test(line)) return undefined;
  return /^([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(line)?.[1];
}

/** Every dependency a manifest declares (runtime, dev, optional, peer; PEP 621, Poetry, requirements files). */
export function dependenciesOf(manifest: Manifest): Dependency[] {
  const data = manifest.data as Record<string, unknown> | null;
  const names: Array<[string, Ecosystem, boolean]> = [];
  const record = (value: unknown) => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
  const list = (value: unknown) => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
  if (manifest.kind === 'package.json') {
    for (const field of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
      for (const name of Object.keys(record(data?.[field]))) names.push([name, 'npm', field === 'devDependencies']);
    }
  } else if (manifest.kind === 'pyproject.toml') {
    const project = record(data?.project);
    const requirements: Array<[string, boolean]> = [
      ...list(project.dependencies).map((item) => [item, false] as [string, boolean]),
      ...Object.values(record(project['optional-dependencies'])).flatMap(list).map((item) => [item, false] as [string, boolean]),
      ...Object.values(record(data?.['dependency-groups'])).flatMap(list).map((item) => [item, true] as [string, boolean]),
    ];
    for (const [requirement, dev] of requirements) {
      const name = requirementName(requirement);
      if (name) names.push([name, 'pypi', dev]);
    }
    const poetry = record(record(record(data?.tool).poetry).dependencies);
    for (const name of Object.keys(poetry)) if (name !== 'python') names.push([name, 'pypi', false]);
  } else if ((manifest.kind === 'requirements.txt' || manifest.kind === 'setup.py') && typeof manifest.data === 'string') {
    // setup.py is code, not data: only its `install_requires` strings are read, never run.
    const text = manifest.kind === 'setup.py' ? setupRequirements(manifest.data) : manifest.data.split('\n');
    for (const line of text) {
      const name = requirementName(line);
      if (name) names.push([name, 'pypi', false]);
    }
  }
  return names.map(([name, ecosystem, dev]) => ({ name, ecosystem, manifest, dev }));
}

/** The quoted strings of `install_requires=[...]` in a setup.py. */
function setupRequirements(source: string): string[] {
  const list = /install_requires\s*=\s*\[([^\]]*)\]/.exec(source)?.[1] ?? '';
  return [...list.matchAll(/["']([^"']+)["']/g)].map((match) => match[1]!);
}
