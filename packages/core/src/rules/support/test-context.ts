// Hand-built rule contexts for rule unit tests: the rule sees exactly what the engine would hand it, nothing is mocked.
import type { FindingInput, Rule, RuleContext } from '../create-rule.js';
import type { Manifest, PackageMetadata, RemoteObservation, ScanTarget, SourceFile, ToolDefinition, ToolParameter } from '../../scan/model.js';
import { modelTexts } from '../../scan/model-texts.js';

export interface ContextInput {
  name?: string;
  target?: ScanTarget;
  files?: Array<Pick<SourceFile, 'path' | 'text'> & Partial<SourceFile>>;
  manifests?: Manifest[];
  tools?: ToolDefinition[];
  /** What a live scan observed about a remote endpoint. */
  remote?: RemoteObservation[];
}

export function runRule(rule: Rule, input: ContextInput): FindingInput[] {
  return runRuleWith(rule, input, {});
}

/** `runRule` with what the engine adds in some scans: the scan's clock and the registry's metadata of the target. */
export function runRuleWith(rule: Rule, input: ContextInput, extra: { now?: Date; metadata?: PackageMetadata }): FindingInput[] {
  const findings: FindingInput[] = [];
  const tools = input.tools ?? [];
  const context: RuleContext = {
    mode: 'fast',
    workspace: {
      name: input.name ?? 'example-server',
      target: input.target ?? { kind: 'directory', input: '.', path: '/tmp/example' },
      ...(extra.metadata && { metadata: extra.metadata }),
    },
    files: (input.files ?? []).map((file) => ({
      absPath: `/tmp/example/${file.path}`,
      role: 'source',
      size: file.text?.length ?? 0,
      ...file,
    })),
    manifests: input.manifests ?? [],
    tools,
    modelTexts: modelTexts(tools),
    flows: [],
    facts: [],
    ...(extra.now && { now: extra.now }),
    ...(input.remote && { remote: input.remote }),
    report: (finding) => findings.push(finding),
  };
  rule.check(context);
  return findings.map((finding) => ({ ...finding, severity: finding.severity ?? rule.meta.severity }));
}

/** A tool as an extractor would produce it. */
export function tool(
  name: string,
  description: string,
  parameters: Array<Partial<ToolParameter> & { name: string }> = [],
  kind: ToolDefinition['kind'] = 'tool',
): ToolDefinition {
  return {
    kind,
    name,
    description,
    parameters: parameters.map((parameter) => ({ required: true, type: 'string', ...parameter })),
    location: { file: 'src/index.ts', line: 10, column: 1 },
    extractor: 'mcp-sdk',
  };
}

/** Findings at or above medium: what the "benign stays clean" tables assert is empty. */
export function serious(findings: FindingInput[]): FindingInput[] {
  return findings.filter((finding) => ['critical', 'high', 'medium'].includes(finding.severity ?? 'critical'));
}
