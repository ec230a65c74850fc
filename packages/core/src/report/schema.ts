// The JSON report contract: what `svc scan --format json` prints, what the daemon stores and serves, and what
// schema/report.schema.json publishes. The zod schemas mirror scan/model.ts; schema.test.ts proves at compile time
// that the two cannot drift (each inferred type must be *identical* to its model type, not merely assignable).
import { z } from 'zod';
import { SOURCE_KINDS } from '../scan/analysis/catalog.js';
import { CATEGORIES, FAIL_ON_LEVELS, SEVERITIES } from '../scan/model.js';
import type { ScanReport, Severity } from '../scan/model.js';

/**
 * Semver of the report format. Additive changes (a new optional field, a new category or severity-neutral enum
 * value) bump the minor; removing or renaming a field, or changing its meaning, bumps the major. Consumers must
 * ignore fields they do not know, which is why the published JSON Schema leaves objects open.
 */
export const REPORT_SCHEMA_VERSION = '2.1.0';

/** Illustrative home of the published schema; versioned so a consumer can pin the contract it was written for. */
export const REPORT_SCHEMA_ID = `https://svc.dev/schema/report/${REPORT_SCHEMA_VERSION}.json`;

/** A target that could not be scanned; the other targets of the run are still reported. */
export interface TargetFailure {
  input: string;
  message: string;
}

/** Everything one `svc scan` invocation produced: one report per scanned target plus the targets that failed. */
export interface ScanRun {
  schemaVersion: string;
  generator: { name: 'svc'; version: string };
  reports: ScanReport[];
  errors: TargetFailure[];
}

// Unions that model.ts declares as types only; the compile-time checks in schema.test.ts keep these lists exact.
const severity = z.enum(SEVERITIES as readonly ['critical', 'high', 'medium', 'low', 'info']);
const category = z.enum(CATEGORIES);
const scanMode = z.enum(['fast', 'deep']);
const targetKind = z.enum(['directory', 'npm', 'pypi', 'git', 'remote', 'config']);
const mcpClient = z.enum(['claude-desktop', 'claude-code', 'cursor', 'vscode', 'windsurf', 'unknown']);
const toolKind = z.enum(['tool', 'prompt', 'resource', 'instructions']);
const extractorId = z.enum([
  'mcp-sdk',
  'mcp-sdk-lowlevel',
  'fastmcp-ts',
  'tool-map',
  'class-tool',
  'mcp-use',
  'openapi',
  'python-fastmcp',
  'python-lowlevel',
  'python-jsonrpc',
  'manifest',
  'remote',
]);
const verdict = z.enum(['confirm', 'dismiss', 'uncertain']);
const grade = z.enum(['A', 'B', 'C', 'D', 'F']);

// Strict objects so a runtime `parse` rejects fields the contract does not know; the JSON Schema export reopens
// them (see reportJsonSchema) because published schemas must accept later minor versions.
export const sourceLocationSchema = z
  .strictObject({
    file: z.string().describe('Path relative to the target root, forward slashes (or the endpoint URL for remote tools).'),
    line: z.number().int().describe('1-based line.'),
    column: z.number().int().describe('1-based column.'),
    endLine: z.number().int().optional(),
    endColumn: z.number().int().optional(),
  })
  .meta({ id: 'SourceLocation', description: 'A place in a scanned file.' });

export const configOriginSchema = z
  .strictObject({
    configPath: z.string().describe('The MCP client config file the target was expanded from.'),
    client: mcpClient.describe('Which MCP client the config file belongs to.'),
    serverName: z.string().describe('The server entry name in the config.'),
    line: z.number().int().optional().describe('1-based line of the server entry in the config file (since 2.1.0).'),
    command: z.string().optional().describe('Launch command as configured (npx, uvx, node, python …).'),
    args: z.array(z.string()).optional().describe('Launch arguments as configured.'),
    url: z.string().optional().describe('Endpoint URL for remote servers.'),
    envKeys: z.array(z.string()).optional().describe('Names (never values) of the environment variables the config sets.'),
  })
  .meta({ id: 'ConfigOrigin', description: 'Where a target came from when it was expanded out of an MCP client config.' });

export const toolParameterSchema = z
  .strictObject({
    name: z.string(),
    type: z.string().optional(),
    description: z.string().optional(),
    enum: z.array(z.string()).optional(),
    default: z.unknown().optional().describe('Declared default value, any JSON.'),
    required: z.boolean(),
    pattern: z.string().optional().describe('Regex constraint declared by the schema.'),
    format: z.string().optional().describe('Format constraint declared by the schema (url, email, uuid …).'),
    maximum: z.number().optional().describe('Upper bound declared by the schema on the value or its length.'),
  })
  .meta({ id: 'ToolParameter', description: 'One input parameter of a tool as declared to the model.' });

export const capabilitySchema = z
  .strictObject({
    kind: z
      .enum(['file-read', 'file-write', 'file-delete', 'process', 'network', 'env', 'credential-read', 'persistence', 'security-off'])
      .describe('What the code can do (docs/capabilities.md).'),
    detail: z.string().describe('The callee, with the constant path, program or host when known.'),
    target: z.string().optional().describe('The constant path, host or command text involved.'),
    location: sourceLocationSchema.describe('The call that gives the capability.'),
  })
  .meta({ id: 'Capability', description: "One thing a tool's handler can do, inferred from its code and the package functions it calls." });

export const toolDefinitionSchema = z
  .strictObject({
    kind: toolKind,
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    parameters: z.array(toolParameterSchema),
    annotations: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('MCP tool annotations (readOnlyHint, destructiveHint, idempotentHint, openWorldHint, title).'),
    uri: z.string().optional().describe('For resources: the URI or URI template.'),
    location: sourceLocationSchema.describe('Where the definition was found.'),
    extractor: extractorId.describe('Which extractor recognised the definition.'),
    descriptionSource: z.enum(['network']).optional().describe('Set when the description is fetched at run time instead of written in the code.'),
    capabilities: z
      .array(capabilitySchema)
      .optional()
      .describe("What the tool's handler can do (files, processes, hosts, environment, credentials, persistence, security switches); absent when no handler was found."),
  })
  .meta({ id: 'ToolDefinition', description: 'A tool, prompt, resource or server instructions block the model reads.' });

export const flowStepSchema = z
  .strictObject({
    file: z.string(),
    line: z.number().int(),
    note: z.string().describe('What happens to the value at this step.'),
    kind: z.enum(SOURCE_KINDS).optional().describe('On the first step: where the value came from.'),
    guard: z.string().optional().describe('On a step where the value was checked by a check that does not hold: which.'),
  })
  .meta({ id: 'FlowStep', description: 'One step of a dataflow path from origin to sink.' });

export const judgeVoteSchema = z
  .strictObject({
    judge: z.string(),
    verdict,
    reason: z.string(),
  })
  .meta({ id: 'JudgeVote', description: 'One judge’s vote on a finding (deep mode).' });

export const codeContextSchema = z
  .strictObject({
    startLine: z.number().int().min(1).describe('Line number of the first entry of `lines`.'),
    lines: z.array(z.string()).describe('Two lines before the finding’s line, the line, two after; very long lines cut to a window.'),
  })
  .meta({ id: 'CodeContext', description: 'The source lines around a finding, so it can be read without opening the file.' });

export const findingFacetSchema = z
  .strictObject({
    id: z.string().describe('The id the facet has as a finding of its own (suppress or baseline it by this id).'),
    ruleId: z.string(),
    severity,
    message: z.string(),
    location: sourceLocationSchema.optional(),
  })
  .meta({ id: 'FindingFacet', description: 'Another finding with the same root cause in the same file, folded into this one.' });

export const findingSchema = z
  .strictObject({
    id: z.string().describe('Stable across runs for the same problem: rule id + location or tool + evidence hash.'),
    ruleId: z.string().describe('Id of the rule in the catalog (`svc rules`).'),
    category,
    severity,
    confidence: z.number().min(0).max(1).describe('0..1: the rule’s prior, or the judge panel’s consensus in deep mode.'),
    message: z.string(),
    evidence: z.string().describe('The text or code that shows the problem, hidden characters decoded.'),
    location: sourceLocationSchema.optional().describe('Code location, when the finding is about code or a file.'),
    tool: z
      .strictObject({ name: z.string(), kind: toolKind, field: z.string() })
      .optional()
      .describe('Tool and field, when the finding is about text the model reads.'),
    flow: z.array(flowStepSchema).optional().describe('Dataflow path for code findings.'),
    votes: z.array(judgeVoteSchema).optional().describe('Deep mode: the judge panel’s votes.'),
    consensus: verdict.optional().describe('Deep mode: the panel’s consensus.'),
    suppression: z
      .strictObject({
        kind: z.enum(['inline', 'config', 'flag', 'baseline']),
        reason: z.string(),
        source: z.string().describe('Where it was declared: file:line, svc.config.json, the flag, the baseline file.'),
      })
      .optional()
      .describe('On suppressed findings: who silenced it and why.'),
    context: codeContextSchema.optional(),
    facets: z
      .array(findingFacetSchema)
      .optional()
      .describe('Findings with the same root cause in the same file (an HTTP exposure: no auth, CORS *, no Origin check), counted once.'),
  })
  .meta({ id: 'Finding', description: 'One problem a rule found.' });

export const parseProblemSchema = z
  .strictObject({
    file: z.string(),
    message: z.string(),
    kind: z
      .enum(['unparsed', 'over-limit', 'unreadable', 'failed'])
      .describe('The gap it leaves: a file not parsed, left out by a limit, not readable, or a step that failed.'),
  })
  .meta({ id: 'ParseProblem', description: 'A file that did not parse, or another non-fatal problem.' });

export const coverageSchema = z
  .strictObject({
    status: z
      .enum(['scanned', 'partial', 'not-scanned'])
      .describe('scanned: everything found was analysed; partial: some of it was not (see reasons); not-scanned: nothing was.'),
    reasons: z.array(z.string()).describe('One line per gap; empty when scanned.'),
  })
  .meta({ id: 'Coverage', description: 'How much of the target the scan covered. Only a scanned target can be called clean.' });

export const scopedOutFileSchema = z
  .strictObject({
    path: z.string(),
    reason: z
      .enum(['declaration', 'browser-build', 'dual-build-twin'])
      .describe('declaration: types only; browser-build: a web client beside an index.html; dual-build-twin: the CommonJS copy of an analysed ESM build.'),
    detail: z.string(),
  })
  .meta({ id: 'ScopedOutFile', description: 'A code file left out of the analysis, and why.' });

const generatorSchema = z
  .strictObject({ name: z.literal('svc'), version: z.string() })
  .describe('The svc build that produced the document.');

export const scanReportSchema = z
  .strictObject({
    schemaVersion: z.string().describe('Semver of this report format (REPORT_SCHEMA_VERSION).'),
    generator: generatorSchema,
    target: z
      .strictObject({
        kind: targetKind,
        input: z.string().describe('The target as the user gave it.'),
        name: z.string(),
        version: z.string().optional(),
        contentHash: z.string().describe('sha256 over the sorted (path, content) pairs of the scanned files.'),
        origin: configOriginSchema.optional(),
        launchedBy: z.string().optional().describe('On a dependency scanned because a launcher package loads it: the launcher (`name@version`).'),
      })
      .describe('What was scanned.'),
    mode: scanMode,
    startedAt: z.string().describe('ISO 8601 timestamp.'),
    timings: z
      .record(z.string(), z.number())
      .describe('Milliseconds per stage: fetch, inventory, analyze (parse, extract, dataflow), rules, judges, score, total.'),
    stats: z.strictObject({
      files: z.number().int(),
      bytes: z.number().int(),
      parsedFiles: z.number().int(),
      skippedFiles: z.number().int(),
    }),
    tools: z.array(toolDefinitionSchema).describe('Everything the server exposes to the model, extracted statically.'),
    findings: z.array(findingSchema).describe('What the scan found; in deep mode, what the judge panel kept.'),
    dismissed: z
      .array(findingSchema)
      .optional()
      .describe('Deep mode: findings the judge panel dismissed by majority, with their votes. Not counted or scored.'),
    launches: z
      .array(z.strictObject({ name: z.string(), spec: z.string().describe('The version its lockfile pins, else the range its manifest declares.') }))
      .optional()
      .describe('A package with no tool of its own whose entry points load these dependencies; each is scanned as a target of its own.'),
    score: z.number().min(0).max(100).nullable().describe('0..100, see docs/report.md for the formula; null when not scanned.'),
    grade: grade.nullable().describe('Letter grade from the score, capped by critical/high findings; null when not scanned.'),
    // An explicit object rather than z.record(severity, …): the JSON Schema then lists the keys as properties.
    counts: z
      .strictObject(Object.fromEntries(SEVERITIES.map((key) => [key, z.number().int()])) as Record<Severity, z.ZodInt>)
      .describe('Findings per severity, not counting those the judges dismissed.'),
    problems: z.array(parseProblemSchema),
    coverage: coverageSchema,
    suppressed: z
      .array(findingSchema)
      .optional()
      .describe('Findings silenced by an inline svc-ignore, svc.config.json, a flag or a baseline, each with its suppression. Not counted or scored.'),
    repoConfig: z
      .strictObject({ file: z.string(), failOn: z.enum(FAIL_ON_LEVELS).optional() })
      .optional()
      .describe('The repository’s svc.config.json, when the target is the user’s own code and has one.'),
    scopedOut: z
      .array(scopedOutFileSchema)
      .optional()
      .describe('Code files the analyzers did not receive, and why; the text rules (secrets, hidden characters) still read them.'),
  })
  .meta({ id: 'ScanReport', description: 'The result of scanning one target.' });

export const targetFailureSchema = z
  .strictObject({ input: z.string(), message: z.string() })
  .meta({ id: 'TargetFailure', description: 'A target that could not be scanned.' });

export const scanRunSchema = z.strictObject({
  schemaVersion: z.string().describe('Semver of this report format (REPORT_SCHEMA_VERSION).'),
  generator: generatorSchema,
  reports: z.array(scanReportSchema).describe('One report per scanned target.'),
  errors: z.array(targetFailureSchema).describe('Targets that failed; the others are still reported.'),
});

/** The JSON Schema (2020-12) of a ScanRun, with every other contract type under `$defs`. */
export function reportJsonSchema(): Record<string, unknown> {
  const { $schema, ...rest } = z.toJSONSchema(scanRunSchema, {
    target: 'draft-2020-12',
    override: ({ jsonSchema }) => {
      // Open objects: a 1.0 consumer validating a 1.1 report must not fail on a field added later.
      if (jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
    },
  });
  return {
    $schema,
    $id: REPORT_SCHEMA_ID,
    title: 'svc scan run',
    description:
      'Output of `svc scan --format json`: one ScanReport per scanned target and the targets that failed. ' +
      'Objects are open: ignore fields you do not know (additive changes bump the minor version).',
    ...rest,
  };
}
