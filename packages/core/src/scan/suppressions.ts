import { readFile } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { z } from 'zod';
import { FAIL_ON_LEVELS, SEVERITIES, type Finding, type Severity, type SourceFile, type Suppression } from './model.js';
import { TargetError } from './sources/errors.js';
import { readTreeFile } from './tree-file.js';

/**
 * Suppressions: the ways a team says "we know, and here is why" (docs/suppressions.md).
 *
 * - inline: `// svc-ignore <rule-id>[, <rule-id>…]: <reason>` (or `# svc-ignore …` in Python and YAML) on the line
 *   of the finding or the line above it; `*` stands for every rule. A comment without a reason silences nothing and is
 *   reported by the `suppression-without-reason` rule.
 * - the repository's `svc.config.json`: rules to disable, paths to exclude, severity overrides, `failOn`, a baseline.
 * - command-line exclusions (`--exclude-rule`, `--exclude-path`) and a baseline file (`--baseline`).
 *
 * A scanned package must not be able to silence its own findings, so inline comments and `svc.config.json` are
 * honoured only in the user's own code: folder and git targets. For packages fetched from a registry, only what the
 * user passed on the command line applies.
 */

export const CONFIG_FILE = 'svc.config.json';

/** `svc-ignore` after a comment marker; the rule list runs to the `:` that starts the reason (or the line's end). */
const INLINE = /(?:\/\/|\/\*|#|<!--)\s*svc-ignore\b[ \t]*([^:\n]*?)[ \t]*(?::[ \t]*([^\n]*?))?[ \t]*(?:\*\/|-->)?[ \t]*$/gm;

export interface InlineSuppression {
  file: string;
  line: number;
  rules: string[];
  /** Empty when the comment gives none: then it silences nothing. */
  reason: string;
}

/** Per scan's file list: the `suppression-without-reason` rule and `applySuppressions` both read the comments. */
const inlineCache = new WeakMap<readonly SourceFile[], readonly InlineSuppression[]>();

/** Every `svc-ignore` comment in the given files (text files only). */
export function inlineSuppressions(files: readonly SourceFile[]): readonly InlineSuppression[] {
  const cached = inlineCache.get(files);
  if (cached) return cached;
  const found: InlineSuppression[] = [];
  for (const file of files) {
    const text = file.text;
    if (text === undefined || !text.includes('svc-ignore')) continue;
    for (const match of text.matchAll(INLINE)) {
      const rules = (match[1] ?? '').split(/[\s,]+/).filter(Boolean);
      const line = text.slice(0, match.index).split('\n').length;
      found.push({ file: file.path, line, rules, reason: (match[2] ?? '').trim() });
    }
  }
  inlineCache.set(files, found);
  return found;
}

const baselineEntrySchema = z.strictObject({
  id: z.string().min(1),
  ruleId: z.string(),
  where: z.string(),
  reason: z.string().min(1, 'every baseline entry needs a reason'),
  expires: z.iso.date().optional(),
});

export const baselineSchema = z.strictObject({
  version: z.literal(1),
  createdAt: z.iso.datetime(),
  findings: z.array(baselineEntrySchema),
});
export type Baseline = z.infer<typeof baselineSchema>;

const configSchema = z.strictObject({
  $schema: z.string().optional(),
  disable: z.array(z.string().min(1)).default([]).describe('rule ids never reported in this repository'),
  exclude: z.array(z.string().min(1)).default([]).describe('globs of paths whose findings are not reported'),
  severity: z.record(z.string(), z.enum(SEVERITIES)).default({}).describe('rule id → severity'),
  failOn: z.enum(FAIL_ON_LEVELS).optional(),
  baseline: z.string().min(1).optional().describe('a baseline file, relative to this file'),
});
export type RepoConfig = z.infer<typeof configSchema> & { baselineFile?: Baseline };

/** What the caller asks for on the command line; applies to every target. */
export interface SuppressionOptions {
  excludeRules?: readonly string[];
  excludePaths?: readonly string[];
  baseline?: { file: string; data: Baseline };
}

/**
 * Reads and validates a baseline file; a broken one is an error naming the file and the problem, never ignored.
 * `inTree`: the file belongs to a scanned repository (named by its svc.config.json), so it is read as a file of the
 * scanned tree: no symbolic link, no special file, bounded size.
 */
export async function readBaseline(file: string, inTree = false): Promise<Baseline> {
  let data: unknown;
  try {
    const text = inTree ? await readTreeFile(file) : await readFile(file, 'utf8');
    if (text === undefined) throw Object.assign(new Error(`ENOENT: no such file, open '${file}'`), { code: 'ENOENT' });
    data = JSON.parse(text);
  } catch (error) {
    throw new TargetError(file, `baseline does not read: ${(error as Error).message}`);
  }
  const parsed = baselineSchema.safeParse(data);
  if (!parsed.success) throw new TargetError(file, `baseline is not valid: ${describeIssue(parsed.error)}`);
  return parsed.data;
}

/** The repository's `svc.config.json`, if it has one; invalid content fails the target with the reason. */
export async function readRepoConfig(root: string, knownRules: ReadonlySet<string>): Promise<RepoConfig | undefined> {
  const file = path.join(root, CONFIG_FILE);
  let text: string | undefined;
  try {
    // A file of the scanned tree (a cloned repository may be hostile): no link, no special file, bounded.
    text = await readTreeFile(file);
  } catch (error) {
    throw new TargetError(file, `${CONFIG_FILE} ${(error as Error).message}`);
  }
  if (text === undefined) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new TargetError(file, `${CONFIG_FILE} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = configSchema.safeParse(data);
  if (!parsed.success) throw new TargetError(file, `${CONFIG_FILE} is not valid: ${describeIssue(parsed.error)}`);
  const config: RepoConfig = parsed.data;
  // A typo in a rule id would silently disable nothing: refuse it.
  const unknown = [...config.disable, ...Object.keys(config.severity)].filter((id) => !knownRules.has(id));
  if (unknown.length > 0) throw new TargetError(file, `${CONFIG_FILE}: unknown rule id ${unknown.map((id) => `\`${id}\``).join(', ')} (see \`svc rules\`)`);
  if (config.baseline !== undefined) {
    const baselinePath = path.resolve(root, config.baseline);
    if (path.relative(root, baselinePath).startsWith('..')) throw new TargetError(file, `${CONFIG_FILE}: the baseline must be inside the repository`);
    config.baselineFile = await readBaseline(baselinePath, true);
  }
  return config;
}

export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}` : 'invalid';
}

/** Where a finding is, as a baseline records it: `file:line`, or the tool and field for text findings. */
export function findingWhere(finding: Pick<Finding, 'location' | 'tool'>): string {
  if (finding.location) return `${finding.location.file}:${finding.location.line}`;
  if (finding.tool) return `${finding.tool.kind}:${finding.tool.name}:${finding.tool.field}`;
  return '';
}

export interface SuppressionInput {
  findings: readonly Finding[];
  files: readonly SourceFile[];
  /** Whether the target is the user's own code (folder, git): only then inline comments and the config count. */
  ownCode: boolean;
  config?: RepoConfig;
  options: SuppressionOptions;
  now: Date;
}

/** Splits findings into those reported and those suppressed (each with its suppression); applies severity overrides. */
export function applySuppressions(input: SuppressionInput): { findings: Finding[]; suppressed: Finding[] } {
  const { config, options } = input;
  const inline = input.ownCode ? inlineSuppressions(input.files).filter((entry) => entry.reason !== '') : [];
  const configExclude = config && config.exclude.length > 0 ? picomatch(config.exclude, { dot: true }) : undefined;
  const flagExclude = options.excludePaths && options.excludePaths.length > 0 ? picomatch([...options.excludePaths], { dot: true }) : undefined;
  const today = input.now.toISOString().slice(0, 10);
  const baselines = [
    ...(options.baseline ? [{ source: options.baseline.file, data: options.baseline.data }] : []),
    ...(config?.baselineFile && config.baseline ? [{ source: config.baseline, data: config.baselineFile }] : []),
  ];

  const suppressionOf = (finding: Finding): Suppression | undefined => {
    const file = finding.location?.file;
    if (options.excludeRules?.includes(finding.ruleId)) return { kind: 'flag', reason: `rule ${finding.ruleId} excluded`, source: '--exclude-rule' };
    if (file !== undefined && flagExclude?.(file)) return { kind: 'flag', reason: `path ${file} excluded`, source: '--exclude-path' };
    if (config?.disable.includes(finding.ruleId)) return { kind: 'config', reason: `rule ${finding.ruleId} disabled`, source: CONFIG_FILE };
    if (file !== undefined && configExclude?.(file)) return { kind: 'config', reason: `path ${file} excluded`, source: CONFIG_FILE };
    if (file !== undefined && finding.location) {
      const line = finding.location.line;
      const comment = inline.find(
        (entry) => entry.file === file && (entry.line === line || entry.line === line - 1) && (entry.rules.includes(finding.ruleId) || entry.rules.includes('*')),
      );
      if (comment) return { kind: 'inline', reason: comment.reason, source: `${comment.file}:${comment.line}` };
    }
    for (const baseline of baselines) {
      const entry = baseline.data.findings.find((candidate) => candidate.id === finding.id);
      // An expired entry no longer silences: the finding comes back until someone renews or fixes it.
      if (entry && (entry.expires === undefined || entry.expires >= today)) {
        return { kind: 'baseline', reason: entry.reason + (entry.expires ? ` (until ${entry.expires})` : ''), source: baseline.source };
      }
    }
    return undefined;
  };

  const findings: Finding[] = [];
  const suppressed: Finding[] = [];
  for (const original of input.findings) {
    const override = config?.severity[original.ruleId] as Severity | undefined;
    const finding = override ? { ...original, severity: override } : original;
    const suppression = suppressionOf(finding);
    if (suppression) suppressed.push({ ...finding, suppression });
    else findings.push(finding);
  }
  return { findings, suppressed };
}

/** A baseline of the given findings, for `svc baseline`. */
export function createBaseline(findings: readonly Finding[], reason: string, now: Date, expires?: string): Baseline {
  return {
    version: 1,
    createdAt: now.toISOString(),
    // A finding's facets are findings of their own until they are folded together (scan/facets.ts): each is listed.
    findings: findings.flatMap((finding) => [finding, ...(finding.facets ?? [])]).map((finding) => ({
      id: finding.id,
      ruleId: finding.ruleId,
      where: findingWhere(finding),
      reason,
      ...(expires ? { expires } : {}),
    })),
  };
}
