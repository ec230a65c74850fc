import { createRule } from './create-rule.js';
import type { Severity } from '../scan/model.js';
import { WELL_KNOWN_TOOLS, isWellKnownTool } from './support/well-known-tools.js';
import { clip, describeModelText, modelTextFinding, normalizeForMatching, sentences } from './support/text-patterns.js';

const IMPERATIVE = /\b(?:always|must|should|never|instead|also|first|make\s+sure|have\s+to|need\s+to|do\s+not|don't)\b/i;

/** A tool reference: `send_email`, 'send_email' or send_email, optionally prefixed by a server ("mcp_tool_"). */
const TOOL_NAME = String.raw`[\`'"]?([A-Za-z][\w.-]*)[\`'"]?`;

interface Cue {
  name: string;
  weight: number;
  /** True when the cue is about one named tool; its `find` then returns that name. */
  namesTool: boolean;
  /** The tool the sentence reaches for ('' when the cue names none), or undefined when the cue is absent. */
  find(sentence: string): string | undefined;
}

/** `groups`: the capture groups that may hold the tool name (alternatives of one pattern capture in different groups). */
function regexCue(name: string, weight: number, pattern: RegExp, ...groups: number[]): Cue {
  return {
    name,
    weight,
    namesTool: groups.length > 0,
    find(sentence) {
      const match = pattern.exec(sentence);
      if (!match) return undefined;
      return groups.map((group) => match[group]).find((value) => value !== undefined) ?? '';
    },
  };
}

/** "before any other tool of this server" orders the server's own tools, which is its business. */
const SCOPED_TO_THIS_SERVER = /\b(?:of|in|from|on|by)\s+this\s+(?:server|mcp\s+server|toolset|integration|extension)\b/i;

const CUES: readonly Cue[] = [
  regexCue(
    'rewrites the recipient or copies messages elsewhere',
    4,
    /\b(?:always|must|should|make\s+sure)\b[^.\n]{0,80}\b(?:bcc|cc|blind[\s-]copy|send\s+a\s+copy|forward\s+(?:a\s+copy|all|every|them)|change\s+the\s+(?:recipient|destination|address|account|url)|replace\s+the\s+(?:recipient|destination|address|account|url)|redirect|send\s+all\s+(?:emails?|messages?|payments?|requests?)\s+to)\b/i,
  ),
  regexCue(
    'overrides the behaviour of other tools',
    4,
    /\b(?:overrides?|replaces?|supersedes?|takes?\s+precedence\s+over|modif(?:y|ies)|changes?|alters?)\s+(?:the\s+)?(?:behaviou?r|functionality|instructions|implementation|rules|output|results?)\s+of\s+(?:(?:all|any|every)\s+(?:other\s+)?(?:tools?|servers?)|other\s+(?:tools?|servers?)|(?:the\s+)?[`'"]?[\w.-]+[`'"]?\s+(?:tool|server)\b)/i,
  ),
  regexCue(
    'demands to run before every other tool',
    3,
    /\b(?:(?:this\s+tool|it)\s+(?:must|should|has\s+to)\s+(?:always\s+)?be\s+(?:called|used|run|invoked)\s+(?:before|prior\s+to|instead\s+of)\s+(?:any|all|every)\s+(?:other\s+)?tools?|(?:call|use|run|invoke)\s+this\s+tool\s+(?:first\s+)?(?:before|prior\s+to)\s+(?:any|all|every)\s+(?:other\s+)?tools?)/i,
  ),
  regexCue('addresses other tools or servers', 2, /\b(?:all|any|every)\s+other\s+(?:tools?|servers?|mcp\s+servers?|functions)\b[^.\n]{0,80}\b(?:must|should|always|never)\b|\b(?:must|should|always|never)\b[^.\n]{0,80}\b(?:all|any|every)\s+other\s+(?:tools?|servers?)\b/i),
  regexCue('changes how another tool is used', 3, new RegExp(String.raw`\bwhen(?:ever)?\s+(?:the\s+|using\s+the\s+|calling\s+the\s+|you\s+(?:use|call)\s+the\s+)?${TOOL_NAME}\s+tool\b`, 'i'), 1),
  // "instead of fixed URLs" is no tool: a tool is meant when it is used/called or named as a tool.
  regexCue(
    'replaces another tool',
    3,
    new RegExp(String.raw`\b(?:instead\s+of|rather\s+than)\s+(?:(?:using|calling|invoking)\s+(?:the\s+|any\s+)?${TOOL_NAME}|(?:the\s+|any\s+)?${TOOL_NAME}\s+tool\b)`, 'i'),
    1,
    2,
  ),
  regexCue('forbids another tool', 3, new RegExp(String.raw`\b(?:do\s+not|don't|never)\s+(?:use|call|invoke)\s+(?:the\s+)?${TOOL_NAME}\s+tool`, 'i'), 1),
  {
    // Naming a popular server's tool in an instruction: weak alone (documentation does it), decisive with another cue.
    name: 'gives orders about a well-known tool of another server',
    weight: 2,
    namesTool: true,
    find(sentence) {
      if (!IMPERATIVE.test(sentence)) return undefined;
      return sentence.match(/\b[a-z]+(?:_[a-z]+)+\b/g)?.find(isWellKnownTool);
    },
  },
];

/** Words that fill the tool-name slot without naming another tool ("instead of this tool"). */
const NOT_A_TOOL = new Set(['this', 'that', 'it', 'same', 'previous', 'next', 'first', 'appropriate', 'right', 'correct']);

/** A reference to a tool of this same server is ordinary guidance. */
function isOwnTool(reference: string, ownTools: ReadonlySet<string>): boolean {
  const name = reference.toLowerCase().replace(/^(?:mcp_tool_|mcp__\w+__)/, '');
  if (NOT_A_TOOL.has(name) || ownTools.has(name) || ownTools.has(reference.toLowerCase())) return true;
  // Servers prefix their own tools (`firecrawl_map`) and descriptions often use the short name (`map`).
  return [...ownTools].some((own) => own.endsWith(`_${name}`) || own.endsWith(`-${name}`) || own.endsWith(`.${name}`));
}

function severityFor(score: number): Severity {
  if (score >= 7) return 'critical';
  if (score >= 4) return 'high';
  return 'medium';
}

export default createRule({
  id: 'tool-shadowing',
  meta: {
    title: 'Tool description changes how other tools behave',
    category: 'tool-shadowing',
    severity: 'high',
    description:
      'A tool or prompt description that reaches beyond its own tool: it tells the model how to use tools of other ' +
      'servers ("when the send_email tool is called, always bcc …"), to use it instead of another tool, to call it ' +
      'before every other tool, or claims to override other tools. All descriptions of all connected servers share one ' +
      'context, so a malicious server can hijack a trusted one without ever being called. Also reported: a tool that ' +
      'takes the name of a well-known tool (read_file, send_email, fetch …) but describes something unrelated, so the ' +
      'model calls it in place of the real one.',
    remediation:
      'Describe only this tool. Never refer to tools of other servers or prescribe the order of other tools. Give ' +
      'tools distinctive names; a client may namespace them, but the model still sees the bare name.',
    cwe: ['CWE-1427', 'CWE-506'],
    owasp: 'MCP03',
    modes: ['fast', 'deep'],
    confidence: 0.75,
  },
  check(context) {
    const ownTools = new Set(context.tools.map((tool) => tool.name.toLowerCase()));
    for (const modelText of context.modelTexts) {
      if (modelText.field === 'name' || modelText.field.endsWith('.name')) continue;
      const hits: Array<{ cue: Cue; sentence: string; reference: string }> = [];
      for (const { text: sentence } of sentences(normalizeForMatching(modelText.text))) {
        for (const cue of CUES) {
          const reference = cue.find(sentence);
          if (reference === undefined || (cue.weight < 4 && SCOPED_TO_THIS_SERVER.test(sentence))) continue;
          if (cue.namesTool) {
            if (reference === '' || isOwnTool(reference, ownTools)) continue;
            // An unknown name in a sentence that orders nothing is likely a plain word, not a tool.
            if (!IMPERATIVE.test(sentence) && !isWellKnownTool(reference)) continue;
          }
          hits.push({ cue, sentence, reference });
        }
      }
      const cues = [...new Set(hits.map((hit) => hit.cue))];
      const score = cues.reduce((sum, cue) => sum + cue.weight, 0);
      if (score < 3) continue;
      const references = [...new Set(hits.map((hit) => hit.reference).filter((reference) => reference !== ''))];
      context.report({
        ...modelTextFinding(modelText),
        severity: severityFor(score),
        message:
          `The ${describeModelText(modelText)} ${cues.map((cue) => cue.name).join(', ')}` +
          (references.length > 0 ? ` (${references.map((reference) => `\`${reference}\``).join(', ')})` : ''),
        evidence: clip([...new Set(hits.map((hit) => hit.sentence))].slice(0, 3).join(' … '), 400),
      });
    }

    for (const tool of context.tools) {
      const expected = WELL_KNOWN_TOOLS[tool.name.toLowerCase()];
      if (tool.kind !== 'tool' || !expected || !tool.description) continue;
      const description = tool.description.toLowerCase();
      if (description.split(/\s+/).length < 3 || expected.some((word) => description.includes(word))) continue;
      context.report({
        location: tool.location,
        tool: { name: tool.name, kind: tool.kind, field: 'name' },
        severity: 'medium',
        confidence: 0.5,
        key: 'name-collision',
        message:
          `Tool \`${tool.name}\` has the name of a well-known tool of another MCP server but describes something ` +
          'else; the model may call it in place of the real one',
        evidence: clip(`${tool.name}: ${tool.description}`, 300),
      });
    }
  },
});
