import { driftOf, toToolDefinition, type Drift, type DriftChange } from '../scan/drift.js';
import { canonicalHash, type PinnedDefinition } from '../scan/lockfile.js';
import { modelTexts } from '../scan/model-texts.js';
import type { Severity, SourceLocation, ToolDefinition } from '../scan/model.js';
import { createRule, type Rule, type RuleContext } from './create-rule.js';
import ansiEscapeSequences from './ansi-escape-sequences.js';
import exfilMagicParameter from './exfil-magic-parameter.js';
import hiddenUnicode from './hidden-unicode.js';
import obfuscatedModelText from './obfuscated-model-text.js';
import toolPoisoningDirectives from './tool-poisoning-directives.js';
import toolPoisoningSensitiveAccess from './tool-poisoning-sensitive-access.js';
import toolShadowing from './tool-shadowing.js';

/**
 * The rules that read only what the model reads (no code, no capabilities): what they say of the new text and not of
 * the pinned one is what makes a change suspicious.
 */
const TEXT_RULES: readonly Rule[] = [
  toolPoisoningDirectives,
  toolPoisoningSensitiveAccess,
  hiddenUnicode,
  ansiEscapeSequences,
  obfuscatedModelText,
  exfilMagicParameter,
  toolShadowing,
];

export default createRule({
  id: 'tool-drift',
  meta: {
    title: 'Tool changed since it was pinned in mcp.lock',
    category: 'tool-poisoning',
    severity: 'medium',
    description:
      'A server pinned with `svc pin` now shows the model something else: a tool, prompt or resource whose ' +
      'description, title, input schema or annotations changed, one that is new, or one that is gone (compared by ' +
      'a canonical hash of exactly what the model reads, see docs/pinning.md). MCP clients usually ask the user to ' +
      'approve a server once; a server that changes its tools afterwards (a "rug pull") gets new instructions or ' +
      'wider inputs in front of the model without anyone reviewing them. High when the description rules find in ' +
      'the new text something they did not find in the pinned one; low for a removed item. Runs only when the scan ' +
      'has an mcp.lock that names the server; a package version change with identical tools is not reported.',
    remediation:
      'Read the diff. If the change is expected, pin the server again (`svc pin <target>`) and commit mcp.lock; if ' +
      'not, keep the pinned version (pin the package version in the client config) and treat the server as ' +
      'compromised until the change is explained.',
    cwe: ['CWE-494', 'CWE-1427'],
    owasp: 'MCP03',
    modes: ['fast', 'deep'],
    confidence: 0.9,
  },
  check(context) {
    if (!context.pinned) return;
    const drift = driftOf(context.pinned, { tools: context.tools, version: context.workspace.version });
    const version = drift.find((item) => item.kind === 'version');
    const versionNote = version ? ` (package ${version.from ?? 'unversioned'} → ${version.to ?? 'unversioned'})` : '';
    // The first definition of a name, as pinnedItems takes it.
    const located = new Map<string, SourceLocation>();
    for (const tool of context.tools) if (!located.has(`${tool.kind}:${tool.name}`)) located.set(`${tool.kind}:${tool.name}`, tool.location);
    for (const item of drift) {
      if (item.kind === 'version') continue;
      const definition = item.kind === 'removed' ? item.pinned : item.current;
      const location = located.get(item.key);
      const newFindings = item.kind === 'removed' ? [] : suspicious(context, item.kind === 'changed' ? item.pinned : undefined, item.current, location);
      const severity: Severity = newFindings.length > 0 ? 'high' : item.kind === 'removed' ? 'low' : 'medium';
      const what = `${definition.kind === 'instructions' ? 'The server instructions' : `${capital(definition.kind)} \`${definition.name}\``}`;
      context.report({
        message: `${what} ${describe(item)} since it was pinned in mcp.lock${versionNote}${newFindings.length > 0 ? `; the new text is flagged by ${newFindings.join(', ')}` : ''}`,
        evidence: evidence(item),
        severity,
        ...(location ? { location } : {}),
        tool: { name: definition.name, kind: definition.kind, field: 'definition' },
        // Accepting one drift (in a baseline) must not accept the next one: the key is the definition now seen.
        key: `${item.kind}:${canonicalHash(definition)}`,
      });
    }
  },
});

function describe(item: Exclude<Drift, { kind: 'version' }>): string {
  if (item.kind === 'added') return 'is new';
  if (item.kind === 'removed') return 'is gone';
  const parts = [...new Set(item.changes.map(changeWord))];
  return `changed (${parts.join(', ')})`;
}

function changeWord(change: DriftChange): string {
  if (change.field.startsWith('annotations.')) return `annotation ${change.field.slice('annotations.'.length)} ${change.kind}`;
  if (change.field.startsWith('inputSchema.')) {
    if (change.field.endsWith('.description')) return 'parameter description';
    return change.kind === 'widened' ? 'input schema widened' : 'input schema changed';
  }
  return change.field;
}

/** The changes, one per line, the texts as word diffs; a new item's whole definition; a removed item's name. */
function evidence(item: Exclude<Drift, { kind: 'version' }>): string {
  if (item.kind === 'added') {
    const { kind: _kind, name: _name, ...rest } = item.current;
    return `new: ${JSON.stringify(rest)}`;
  }
  if (item.kind === 'removed') return `removed: ${item.pinned.description ?? item.pinned.name}`;
  return item.changes.map((change) => (change.diff !== undefined ? `${change.field}: ${change.diff}` : change.summary)).join('\n');
}

/** Rule ids whose findings (other than info) the new definition gets and the pinned one did not. */
function suspicious(context: RuleContext, pinned: PinnedDefinition | undefined, current: PinnedDefinition, location?: SourceLocation): string[] {
  const at = location ?? { file: '.', line: 1, column: 1 };
  const before = pinned ? textFindings(context, toToolDefinition(pinned, at)) : new Set<string>();
  const after = textFindings(context, toToolDefinition(current, at));
  return [...new Set([...after].filter((finding) => !before.has(finding)).map((finding) => finding.split('\0')[0]!))].sort();
}

function textFindings(context: RuleContext, tool: ToolDefinition): Set<string> {
  const found = new Set<string>();
  const texts = modelTexts([tool]);
  for (const rule of TEXT_RULES) {
    rule.check({
      mode: context.mode,
      workspace: context.workspace,
      files: [],
      manifests: [],
      tools: [tool],
      modelTexts: texts,
      flows: [],
      facts: [],
      ...(context.now ? { now: context.now } : {}),
      report: (finding) => {
        if ((finding.severity ?? rule.meta.severity) !== 'info') found.add(`${rule.id}\0${finding.tool?.field ?? ''}`);
      },
    });
  }
  return found;
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
