// Lookups every judge needs: which flow a finding is about, which tool it concerns, the text around it. Kept in one
// place so the judges agree on what "the finding's flow" and "the finding's tool" are.
import type { Category, Finding, SinkKind, SourceFile, TaintFlow, ToolDefinition, ToolParameter } from '../scan/model.js';
import type { JudgeContext } from './panel.js';

/**
 * What a finding is about, which decides what a judge can look at:
 * - `model-text`: a field the model reads (tool description, parameter description …)
 * - `code`: a place in a file (a flow's sink, a code fact, a secret, a manifest script)
 * - `other`: neither (a package name, a client config entry)
 */
export type FindingSubject = 'model-text' | 'code' | 'other';

export function findingSubject(finding: Finding): FindingSubject {
  // Code rules may name the tool whose input reaches a sink; the flow steps tell them apart from text findings.
  if (finding.tool && !(finding.flow && finding.flow.length > 0)) return 'model-text';
  if (finding.location || (finding.flow && finding.flow.length > 0)) return 'code';
  return 'other';
}

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
 * The flow a code finding reports: the one whose sink is at the finding's location. When several flows end on that
 * line, prefer the one with the same steps, then one whose sink fits the category, then the tool the finding names,
 * then an unsanitised one (rules report unsanitised flows; a guarded flow on the same line is a different path).
 */
export function matchFlow(finding: Finding, flows: readonly TaintFlow[]): TaintFlow | undefined {
  const location = finding.location ?? lastStep(finding);
  if (!location) return undefined;
  const candidates = flows.filter(
    (flow) => flow.sink.location.file === location.file && flow.sink.location.line === location.line,
  );
  if (candidates.length <= 1) return candidates[0];
  const kinds = sinkKindsFor(finding.category);
  const score = (flow: TaintFlow): number =>
    (finding.flow && sameSteps(finding.flow, flow.steps) ? 8 : 0) +
    (kinds?.includes(flow.sink.kind) ? 4 : 0) +
    (finding.tool && flow.origin.tool === finding.tool.name ? 2 : 0) +
    (flow.sanitizers.length === 0 ? 1 : 0);
  return candidates.reduce((best, flow) => (score(flow) > score(best) ? flow : best));
}

function lastStep(finding: Finding): { file: string; line: number } | undefined {
  return finding.flow?.[finding.flow.length - 1];
}

function sameSteps(a: Finding['flow'] & object, b: TaintFlow['steps']): boolean {
  return a.length === b.length && a.every((step, index) => step.file === b[index]?.file && step.line === b[index]?.line);
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

export function fileOf(files: readonly SourceFile[], path: string): SourceFile | undefined {
  return files.find((file) => file.path === path);
}

/** The source line at a location (1-based), when the file's text was read. */
export function lineAt(files: readonly SourceFile[], path: string, line: number): string | undefined {
  const text = fileOf(files, path)?.text;
  if (text === undefined) return undefined;
  return text.split(/\r?\n/)[line - 1];
}

/** Lines around a location, for a reader that needs context (the LLM judge). */
export function linesAround(files: readonly SourceFile[], path: string, line: number, radius: number): string | undefined {
  const text = fileOf(files, path)?.text;
  if (text === undefined) return undefined;
  const lines = text.split(/\r?\n/);
  const first = Math.max(0, line - 1 - radius);
  return lines
    .slice(first, line + radius)
    .map((content, index) => `${first + index + 1}: ${content}`)
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
