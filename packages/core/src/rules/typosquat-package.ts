import { createRule } from './create-rule.js';
import type { Manifest, Severity, SourceFile } from '../scan/model.js';
import { dependenciesOf, normalizePypi, type Ecosystem } from '../scan/dependencies.js';
import { damerauLevenshtein } from './support/edit-distance.js';
import { KNOWN_NPM_PACKAGES, KNOWN_PYPI_PACKAGES, unscopedAliases } from './support/known-mcp-packages.js';
import { signalScore, squatSignals, type SquatSignal } from './support/squat-signals.js';
import { positionAt } from './support/text-patterns.js';

const collapse = (name: string) => name.toLowerCase().replace(/[@/._-]+/g, '');
const tokens = (name: string) => name.toLowerCase().split(/[@/._-]+/).filter(Boolean);

interface Resemblance {
  known: string;
  how: 'separators' | 'typo';
  distance: number;
}

interface KnownName {
  name: string;
  /** The official package this name stands for (an unscoped alias maps back to its scoped original). */
  official: string;
  scope: string | undefined;
  collapsed: string;
  tokens: string[];
}

const scopeOf = (name: string) => /^(@[^/]+)\//.exec(name)?.[1];

/** The forms `resemblance` compares, computed once per known name rather than once per dependency. */
function knownName(name: string, official = name): KnownName {
  return { name, official, scope: scopeOf(name), collapsed: collapse(name), tokens: tokens(name) };
}

/**
 * How `candidate` imitates `known`: the same letters with other separators or scope (`@modelcontextprotocol-sdk`),
 * or a typo in one word of the name, allowed in proportion to that word's length so `redis`/`reddit` (different
 * words) stay apart while `filesytem`/`filesystem` does not. Length differences bound the edit distance from below,
 * so most pairs are rejected before the quadratic distance is computed.
 */
function resemblance(candidate: string, known: KnownName): Resemblance | undefined {
  if (candidate === known.name) return undefined;
  // Only the scope's owner can publish under it, so a near miss inside the same scope is a mistake, not a squat.
  const scope = scopeOf(candidate);
  if (scope !== undefined && scope === known.scope) return undefined;
  if (collapse(candidate) === known.collapsed) return { known: known.official, how: 'separators', distance: 0 };
  const a = tokens(candidate);
  const b = known.tokens;
  if (a.length === b.length) {
    const differing = a.map((token, index) => [token, b[index]!] as const).filter(([x, y]) => x !== y);
    if (differing.length !== 1) return undefined;
    const [token, knownToken] = differing[0]!;
    const limit = knownToken.length >= 8 ? 2 : knownToken.length >= 4 ? 1 : 0;
    if (Math.abs(token.length - knownToken.length) > limit) return undefined;
    const distance = damerauLevenshtein(token, knownToken);
    return distance <= limit ? { known: known.official, how: 'typo', distance } : undefined;
  }
  if (known.name.length < 10 || Math.abs(candidate.length - known.name.length) > 1) return undefined;
  const distance = damerauLevenshtein(candidate.toLowerCase(), known.name.toLowerCase());
  return distance <= 1 ? { known: known.official, how: 'typo', distance } : undefined;
}

const NPM_TARGETS = [
  ...KNOWN_NPM_PACKAGES.map((name) => knownName(name)),
  ...[...unscopedAliases()].map(([alias, official]) => knownName(alias, official)),
];
const PYPI_KNOWN = KNOWN_PYPI_PACKAGES.map(normalizePypi);
const PYPI_TARGETS = PYPI_KNOWN.map((name) => knownName(name));

function closestKnown(name: string, ecosystem: Ecosystem): Resemblance | undefined {
  if (ecosystem === 'npm') {
    if (KNOWN_NPM_PACKAGES.includes(name)) return undefined;
    for (const target of NPM_TARGETS) {
      const found = resemblance(name, target);
      if (found) return found;
    }
    return undefined;
  }
  const normalized = normalizePypi(name);
  if (PYPI_KNOWN.includes(normalized)) return undefined;
  for (const target of PYPI_TARGETS) {
    const found = resemblance(normalized, target);
    if (found) return found;
  }
  return undefined;
}

function ownEcosystems(kind: string, manifests: readonly Manifest[]): Ecosystem[] {
  if (kind === 'npm') return ['npm'];
  if (kind === 'pypi') return ['pypi'];
  const ecosystems: Ecosystem[] = [];
  if (manifests.some((manifest) => manifest.kind === 'package.json')) ecosystems.push('npm');
  if (manifests.some((manifest) => manifest.kind === 'pyproject.toml' || manifest.kind === 'setup.py')) ecosystems.push('pypi');
  return ecosystems;
}

/** `name` of package.json, `[project] name` of pyproject.toml. */
function declaredName(manifest: Manifest | undefined): string | undefined {
  const data = manifest?.data as { name?: unknown; project?: { name?: unknown } } | null | undefined;
  const name = data && typeof data === 'object' ? (data.name ?? data.project?.name) : undefined;
  return typeof name === 'string' && name.length > 0 ? name : undefined;
}

function locate(files: readonly SourceFile[], path: string, name: string) {
  const text = files.find((file) => file.path === path)?.text;
  const index = text ? text.search(new RegExp(`["'\\s]${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}["'\\s=<>~!\\[;]`)) : -1;
  return { file: path, ...(text && index >= 0 ? positionAt(text, index + 1) : { line: 1, column: 1 }) };
}

function describe(found: Resemblance): string {
  return found.how === 'separators'
    ? `the same letters as \`${found.known}\` with other separators or scope`
    : `${found.distance} edit${found.distance === 1 ? '' : 's'} away from \`${found.known}\``;
}

function severityOf(found: Resemblance): Severity {
  return found.distance >= 2 ? 'medium' : 'high';
}

const LEVELS: readonly Severity[] = ['info', 'low', 'medium', 'high', 'critical'];

/**
 * The name alone keeps its severity and the rule's confidence; each sign that the package is a squat (see
 * support/squat-signals.ts) adds to both: one strong sign or two supporting ones raise the severity a level, twice
 * that two levels, up to critical.
 */
function judged(found: Resemblance, signals: readonly SquatSignal[]): { severity: Severity; confidence?: number; shown: string[] } {
  const score = signalScore(signals);
  if (score < 2) return { severity: severityOf(found), shown: [] };
  const level = Math.min(LEVELS.length - 1, LEVELS.indexOf(severityOf(found)) + (score >= 4 ? 2 : 1));
  return { severity: LEVELS[level]!, confidence: Math.min(0.95, 0.7 + 0.05 * score), shown: signals.map((signal) => signal.text) };
}

export default createRule({
  id: 'typosquat-package',
  meta: {
    title: 'Package name imitates a well-known MCP package',
    category: 'supply-chain',
    severity: 'high',
    description:
      'The package itself, or one of its dependencies (package.json, pyproject.toml, requirements.txt), has a name ' +
      'one or two typing slips away from a well-known MCP package (the official SDKs and reference servers, FastMCP, ' +
      'popular community servers), or the same letters with a different scope or separators ' +
      '(`@modelcontextprotocol-sdk`). Typosquats copy the real package and add a payload; users and models that ' +
      'mistype a name in `npx -y` or a config install them. Exact names of known packages are never reported. For ' +
      'the scanned package itself, signs of a squat raise severity and confidence and are listed in the evidence: ' +
      'install scripts, a repository URL of another project than the imitated one (or none), a first release less ' +
      'than 30 days before the scan (deep mode, from the registry), three versions or fewer. Dependencies are judged ' +
      'by name alone, since their registry metadata is not fetched.',
    remediation:
      'Check the name against the official source (the modelcontextprotocol/servers README, the vendor\'s docs) and ' +
      'correct it. If the package was installed, treat the machine as compromised: rotate credentials it could read.',
    cwe: ['CWE-1357', 'CWE-829'],
    owasp: 'MCP04',
    modes: ['fast', 'deep'],
    confidence: 0.7,
  },
  check(context) {
    const { workspace, manifests, files } = context;
    for (const ecosystem of ownEcosystems(workspace.target.kind, manifests)) {
      const declaring = ecosystem === 'npm' ? ['package.json'] : ['pyproject.toml', 'setup.py'];
      const own = manifests.filter((candidate) => declaring.includes(candidate.kind));
      const manifest = own.find((candidate) => !candidate.path.includes('/')) ?? own[0];
      // A registry target is named by the registry; a local checkout by its folder, so its manifest says what it publishes as.
      const fromRegistry = workspace.target.kind === 'npm' || workspace.target.kind === 'pypi';
      const name = (fromRegistry ? undefined : declaredName(manifest)) ?? workspace.name;
      const found = closestKnown(name, ecosystem);
      if (!found) continue;
      const { severity, confidence, shown } = judged(found, squatSignals({ known: found.known, manifest, metadata: workspace.metadata, now: context.now }));
      context.report({
        severity,
        ...(confidence !== undefined && { confidence }),
        key: `self:${name}`,
        location: manifest ? locate(files, manifest.path, name) : undefined,
        message: `This package's name \`${name}\` is ${describe(found)}${shown.length ? ` (signs of a squat: ${shown.join('; ')})` : ''}`,
        evidence: [`${name} ≈ ${found.known}`, ...shown].join('\n'),
      });
      break;
    }
    const seen = new Set<string>();
    for (const dependency of manifests.flatMap(dependenciesOf)) {
      if (seen.has(`${dependency.ecosystem}:${dependency.name}`)) continue;
      seen.add(`${dependency.ecosystem}:${dependency.name}`);
      const found = closestKnown(dependency.name, dependency.ecosystem);
      if (!found) continue;
      context.report({
        severity: severityOf(found),
        key: `dependency:${dependency.name}`,
        location: locate(files, dependency.manifest.path, dependency.name),
        message: `Dependency \`${dependency.name}\` in ${dependency.manifest.path} is ${describe(found)}`,
        evidence: `${dependency.name} ≈ ${found.known}`,
      });
    }
  },
});
