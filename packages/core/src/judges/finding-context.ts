// Lookups every judge needs: which flow a finding is about, which tool it concerns, the text around it. Kept in one
// place so the judges agree on what "the finding's flow" and "the finding's tool" are.
import { isSafeFlow } from '../scan/analysis/catalog.js';
import type { Category, Finding, FlowStep, SinkKind, SourceFile, TaintFlow, ToolDefinition, ToolParameter } from '../scan/model.js';
import type { JudgeContext } from './panel.js';

/**
 * What a finding is about, which decides what a judge can look at:
 * - `model-text`: a field the model reads (tool description, parameter description …)
 * - `code`: a place in a file (a flow's sink, a code fact, a secret, a manifest script)
 * - `other`: neither (a package name, a client config entry)
 */
export type FindingSubject = 'model-text' | 'code' | 'other';

export function findingSubject(finding: Finding, context: JudgeContext): FindingSubject {
  if (finding.flow && finding.flow.length > 0) return 'code';
  if (finding.tool) {
    if (MODEL_TEXT_FIELD.test(finding.tool.field)) return 'model-text';
    // Code rules may name the tool whose input reaches a sink; a flow ending at the location tells them apart.
    return matchFlow(finding, context.flows) ? 'code' : 'model-text';
  }
  return finding.location ? 'code' : 'other';
}

/** The fields modelTexts() produces (scan/model-texts.ts): a finding on one of them is about what the model reads. */
const MODEL_TEXT_FIELD = /^(?:name|title|description|uri|annotations\.title|parameters\..+)$/;

/** Sink kinds a category's flow can end in; used to pick the right flow when several end on one line. */
const SINKS_BY_CATEGORY: Partial<Record<Category, readonly SinkKind[]>> = {
  'command-injection': ['command'],
  'code-injection': ['code', 'deserialize'],
  'path-traversal': ['file-read', 'file-write'],
  ssrf: ['network'],
  'sql-injection': ['sql'],
  exfiltration: ['network-send', 'email', 'network'],
  'excessive-capability': ['command', 'file-write', 'file-read', 'code'],
  obfuscation: ['code', 'command'],
  'malicious-install': ['code', 'command', 'network', 'network-send'],
  authorization: ['sql', 'file-read', 'file-write'],
};

export function sinkKindsFor(category: Category): readonly SinkKind[] | undefined {
  return SINKS_BY_CATEGORY[category];
}

/** Categories whose findings say "untrusted input reaches a dangerous sink". */
export const INJECTION_CATEGORIES: ReadonlySet<Category> = new Set<Category>([
  'command-injection',
  'code-injection',
  'path-traversal',
  'ssrf',
  'sql-injection',
]);

/**
 * The flow a code finding reports: the one whose sink is at the finding's location and fits the finding's category.
 * When several flows end on that line, prefer the one with the same steps, then the tool the finding names, then an
 * unsanitised one (rules report unsanitised flows; a guarded flow on the same line is a different path).
 */
export function matchFlow(finding: Finding, flows: readonly TaintFlow[]): TaintFlow | undefined {
  const location = finding.location ?? lastStep(finding);
  if (!location) return undefined;
  const kinds = sinkKindsFor(finding.category);
  const reported = finding.flow && finding.flow.length > 0 ? finding.flow : undefined;
  const candidates = flows.filter(
    (flow) =>
      flow.sink.location.file === location.file &&
      flow.sink.location.line === location.line &&
      // A fact-based finding (TLS off, CORS) sharing a line with some flow is not about that flow.
      (kinds ? kinds.includes(flow.sink.kind) : reported !== undefined && sameSteps(reported, flow.steps)),
  );
  if (candidates.length <= 1) return candidates[0];
  const score = (flow: TaintFlow): number =>
    (reported && sameSteps(reported, flow.steps) ? 4 : 0) +
    (finding.tool && flow.origin.tool === finding.tool.name ? 2 : 0) +
    (isSafeFlow(flow) ? 0 : 1);
  return candidates.reduce((best, flow) => (score(flow) > score(best) ? flow : best));
}

function lastStep(finding: Finding): { file: string; line: number } | undefined {
  return finding.flow?.[finding.flow.length - 1];
}

/** The finding's steps are the flow's, possibly with one more step at the sink (rules add "reaches <callee>"). */
function sameSteps(reported: FlowStep[], steps: readonly FlowStep[]): boolean {
  return (
    (reported.length === steps.length || reported.length === steps.length + 1) &&
    steps.every((step, index) => step.file === reported[index]?.file && step.line === reported[index]?.line)
  );
}

/** The tool a finding concerns: the one it names, else the origin tool of its flow. */
export function findTool(finding: Finding, context: JudgeContext, flow?: TaintFlow): ToolDefinition | undefined {
  const name = finding.tool?.name ?? flow?.origin.tool;
  if (name === undefined) return undefined;
  const kind = finding.tool?.kind;
  return (
    context.tools.find((tool) => tool.name === name && (kind === undefined || tool.kind === kind)) ??
    context.tools.find((tool) => tool.name === name)
  );
}

/** The full text of the field a model-text finding points at (`description`, `parameters.path.description` …). */
export function fieldText(tool: ToolDefinition | undefined, field: string | undefined): string | undefined {
  if (!tool || !field) return undefined;
  if (field === 'description') return tool.description;
  if (field === 'title') return tool.title;
  if (field === 'name') return tool.name;
  if (field === 'uri') return tool.uri;
  if (field === 'annotations.title' && typeof tool.annotations?.title === 'string') return tool.annotations.title;
  const parameter = parameterOfField(tool, field);
  if (!parameter) return undefined;
  if (field.endsWith('.description')) return parameter.description;
  if (field.endsWith('.default') && typeof parameter.default === 'string') return parameter.default;
  if (field.endsWith('.name')) return parameter.name;
  return undefined;
}

/** `parameters.<name>.…` → that parameter. */
export function parameterOfField(tool: ToolDefinition, field: string): ToolParameter | undefined {
  const match = /^parameters\.(.+)\.(?:name|description|default|enum\[\d+\])$/.exec(field);
  return match ? tool.parameters.find((parameter) => parameter.name === match[1]) : undefined;
}

/**
 * Parameters a model-text finding is about: the one its field names, plus any parameter the evidence names (a
 * poisoned description says "pass the key in `notes`").
 */
export function parametersNamed(finding: Finding, tool: ToolDefinition): ToolParameter[] {
  const named = new Set<ToolParameter>();
  const own = finding.tool ? parameterOfField(tool, finding.tool.field) : undefined;
  if (own) named.add(own);
  for (const parameter of tool.parameters) {
    if (new RegExp(`(^|[^\\w])${escapeRegExp(parameter.name)}([^\\w]|$)`).test(finding.evidence)) named.add(parameter);
  }
  return [...named];
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Path → file, built once per file list: judges look files up for every finding. */
const filesByPath = new WeakMap<readonly SourceFile[], Map<string, SourceFile>>();
/** Split lines, built once per file: bundles can be megabytes and carry many findings. */
const linesByFile = new WeakMap<SourceFile, string[]>();

export function fileOf(files: readonly SourceFile[], path: string): SourceFile | undefined {
  let index = filesByPath.get(files);
  if (!index) {
    index = new Map(files.map((file) => [file.path, file]));
    filesByPath.set(files, index);
  }
  return index.get(path);
}

function linesOf(files: readonly SourceFile[], path: string): string[] | undefined {
  const file = fileOf(files, path);
  if (file?.text === undefined) return undefined;
  let lines = linesByFile.get(file);
  if (!lines) {
    lines = file.text.split(/\r?\n/);
    linesByFile.set(file, lines);
  }
  return lines;
}

/** The source line at a location (1-based), when the file's text was read. */
export function lineAt(files: readonly SourceFile[], path: string, line: number): string | undefined {
  return linesOf(files, path)?.[line - 1];
}

/** Lines around a location, for a reader that needs context (the LLM judge). */
export function linesAround(files: readonly SourceFile[], path: string, line: number, radius: number): string | undefined {
  const lines = linesOf(files, path);
  if (!lines) return undefined;
  const first = Math.max(0, line - 1 - radius);
  return lines
    .slice(first, line + radius)
    .map((content, index) => `${first + index + 1}: ${content.length > 300 ? `${content.slice(0, 300)}…` : content}`)
    .join('\n');
}

/** `snake_case` / `camelCase` / `kebab-case` → lower-case words, so vocabularies match names too. */
export function words(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-./]+/g, ' ')
    .toLowerCase();
}

/** Shortens a quote for a one-sentence reason. */
export function quote(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return `"${flat.length > max ? `${flat.slice(0, max - 1)}…` : flat}"`;
}

export function where(location: { file: string; line: number }): string {
  return `${location.file}:${location.line}`;
}
