import { dependenciesOf, normalizePypi } from './dependencies.js';
import type { LaunchedDependency } from './launcher.js';
import type { Coverage, ExtractionDiagnostic, Manifest, ParseProblem, ProblemKind, ToolDefinition } from './model.js';

/**
 * Runtime dependencies that make a package an MCP server (or a server framework's user): when one is declared and no
 * tool, prompt or resource was recognised, the scan most likely missed the server's shape, so its code paths from
 * tool input were never followed and the target is `partial`, not clean. A client or proxy that depends on the SDK
 * is reported partial too: the scan cannot tell it from a server written in a shape it does not know.
 */
const MCP_SERVER_DEPENDENCIES: Readonly<Record<'npm' | 'pypi', readonly string[]>> = {
  npm: ['@modelcontextprotocol/sdk', '@modelcontextprotocol/server', 'fastmcp', 'mcp-framework', 'mcp-use', '@mastra/mcp'],
  pypi: ['mcp', 'fastmcp'],
};

const PROBLEM_HEADINGS: Record<ProblemKind, (count: number) => string> = {
  unparsed: (count) => `${count} file${count === 1 ? '' : 's'} not parsed`,
  'over-limit': (count) => `${count} over the scan's limits`,
  unreadable: (count) => `${count} not readable`,
  failed: (count) => `${count} analysis step${count === 1 ? '' : 's'} failed`,
};

const LISTED = 3;

/**
 * What the scan covered: every problem and a server whose tools were not found make the target partial. The
 * extractors' diagnostics name the framework a file imports and the shapes looked for; without one, a runtime
 * dependency on a server SDK is the evidence.
 */
export function assessCoverage(input: {
  problems: readonly ParseProblem[];
  tools: readonly ToolDefinition[];
  manifests: readonly Manifest[];
  diagnostics?: readonly ExtractionDiagnostic[];
  /** Dependencies a tool-less package's entry points load (scan/launcher.ts). */
  launches?: readonly LaunchedDependency[];
}): Coverage {
  const reasons: string[] = [];
  for (const kind of Object.keys(PROBLEM_HEADINGS) as ProblemKind[]) {
    const problems = input.problems.filter((problem) => problem.kind === kind);
    if (problems.length === 0) continue;
    const listed = problems.slice(0, LISTED).map((problem) => (problem.file && problem.file !== '.' ? `${problem.file}: ${problem.message}` : problem.message));
    const more = problems.length > LISTED ? `; ${problems.length - LISTED} more` : '';
    reasons.push(`${PROBLEM_HEADINGS[kind](problems.length)} (${listed.join('; ')}${more})`);
  }
  const launches = input.tools.length === 0 ? (input.launches ?? []) : [];
  if (launches.length > 0) {
    // The launcher is partial on its own: what its command serves is defined in code it does not ship.
    const names = launches.map((dependency) => `${dependency.name}@${dependency.spec}`).join(', ');
    reasons.push(
      `no tools in the package itself: its entry point loads ${names}, which svc scans as ${launches.length === 1 ? 'a target' : 'targets'} ` +
        `of ${launches.length === 1 ? 'its' : 'their'} own when the package comes from the registry or has them in node_modules`,
    );
  }
  const unrecognised = input.tools.length === 0 && launches.length === 0 ? (input.diagnostics ?? []).filter((diagnostic) => diagnostic.code === 'unrecognised-server-shape') : [];
  for (const diagnostic of unrecognised) reasons.push(`no tools found: ${diagnostic.path} ${diagnostic.detail}`);
  if (input.tools.length === 0 && unrecognised.length === 0 && launches.length === 0) {
    const sdk = input.manifests
      .flatMap(dependenciesOf)
      .find((dependency) => !dependency.dev && MCP_SERVER_DEPENDENCIES[dependency.ecosystem].includes(dependency.ecosystem === 'pypi' ? normalizePypi(dependency.name) : dependency.name));
    if (sdk) {
      reasons.push(
        `no tools found: ${sdk.manifest.path} depends on ${sdk.name}, but no tool, prompt or resource definition was ` +
          'recognised, so no handler was followed (docs/coverage.md lists the shapes svc reads)',
      );
    }
  }
  return { status: reasons.length === 0 ? 'scanned' : 'partial', reasons };
}

/** A target whose code was not looked at: a remote endpoint, a container image, a command svc cannot resolve. */
export function notScanned(reason: string): Coverage {
  return { status: 'not-scanned', reasons: [reason] };
}
