import { createRule } from './create-rule.js';
import type { Severity } from '../scan/model.js';
import {
  CONVERSATION_TARGET,
  DIRECTIVE,
  GENERIC_SECRET,
  IMPERATIVE_OPENING,
  PRIVATE_DATA,
  SPECIFIC_SENSITIVE,
  TRANSFER,
  TRANSFER_TO_CARRIER,
} from './support/sensitive-targets.js';
import { worstSeverity } from './support/severity.js';
import { clip, describeModelText, modelTextFinding, normalizeForMatching, sentences } from './support/text-patterns.js';

/** Third-person verbs open capability statements ("Reads a file …", "Returns the secret …"). */
const CAPABILITY_OPENING =
  /^\s*(?:this\s+tool\s+)?(?:(?!(?:always|pass|access|process|address|focus|press|this|unless|as)\b)\w+s|is|are|can|will|may)\b/i;

/** Verbs that touch data; a directive next to a private file without one is setup advice ("create a .env file"). */
const ACCESS_VERB =
  /\b(?:read|open|cat|load|get|fetch|collect|gather|grab|include|pass|send|upload|attach|copy|dump|extract|print|output|access|retrieve|paste)\b/i;

/** The whole path a match sits in, so evidence says `~/.cursor/mcp.json` rather than `.cursor/`. */
function pathAround(sentence: string, index: number): string {
  const isPathChar = (char: string | undefined) => char !== undefined && /[^\s'"`()<>,;]/.test(char);
  let start = index;
  let end = index;
  while (isPathChar(sentence[start - 1])) start -= 1;
  while (isPathChar(sentence[end])) end += 1;
  return sentence.slice(start, end).replace(/[.:]+$/, '');
}

interface Hit {
  sentence: string;
  severity: Severity;
  what: string[];
}

/** `inParameter`: the sentence describes a parameter, so "fill this with …" already names where the data goes. */
function classify(sentence: string, inParameter: boolean): Hit | undefined {
  const directive = DIRECTIVE.test(sentence) && !CAPABILITY_OPENING.test(sentence);
  const imperative = IMPERATIVE_OPENING.test(sentence);
  const transfer = TRANSFER.test(sentence);
  const toCarrier = inParameter || TRANSFER_TO_CARRIER.test(sentence);
  const specific = [...sentence.matchAll(new RegExp(SPECIFIC_SENSITIVE.source, 'gi'))];
  if (specific.length > 0 && ACCESS_VERB.test(sentence)) {
    const what = specific.map((match) => pathAround(sentence, match.index + match[0].search(/\S/)));
    // A bare imperative moving a key "to the remote host" can be what the tool does; into a parameter, it is not.
    if ((directive && transfer) || (imperative && toCarrier)) return { sentence, severity: 'critical', what };
    if (directive) return { sentence, severity: 'high', what };
    // "Read ~/.ssh/config" may be what an SSH tool does; worth a look, not an alarm.
    if (imperative) return { sentence, severity: 'low', what };
    return undefined;
  }
  if (specific.length > 0) return undefined;
  const conversation = CONVERSATION_TARGET.exec(sentence);
  if (conversation && (directive || (imperative && toCarrier))) return { sentence, severity: 'high', what: [conversation[0]] };
  // Other people's messages or the user's documents, moved somewhere on the description's say-so.
  const privateData = PRIVATE_DATA.exec(sentence);
  if (privateData && directive && transfer) return { sentence, severity: 'high', what: [privateData[0]] };
  const secret = GENERIC_SECRET.exec(sentence);
  // A generic secret word is a capability unless the model is told to move it somewhere and it is not the user's input.
  if (secret && directive && transfer && /\b(?:all|every|any|the\s+user's|your|their|stored|saved|existing)\b/i.test(sentence)) {
    return { sentence, severity: 'high', what: [secret[0]] };
  }
  return undefined;
}

export default createRule({
  id: 'tool-poisoning-sensitive-access',
  meta: {
    title: 'Tool description asks the model to read or send secrets or private data',
    category: 'tool-poisoning',
    severity: 'critical',
    description:
      'A text the model reads tells it to open credentials or private files (`~/.ssh/id_rsa`, `.env`, ' +
      '`~/.aws/credentials`, the MCP client config `mcp.json` / `claude_desktop_config.json`), or to hand over API keys, ' +
      'passwords, the conversation history or its system prompt, usually by putting them into a parameter. The model ' +
      'has the user\'s file access through other tools, so such an instruction exfiltrates data the user never chose to ' +
      'share. Plain capability statements of file or secret tools ("Reads a file from the allowed directories") are ' +
      'not reported.',
    remediation:
      'Remove the instruction. A tool that needs a credential should read it from its own configuration (environment ' +
      'or a secret store), never ask the model for it. Treat a third-party server with such a description as malicious.',
    cwe: ['CWE-200', 'CWE-506', 'CWE-1427'],
    owasp: 'MCP03',
    modes: ['fast', 'deep'],
    confidence: 0.8,
  },
  check(context) {
    for (const modelText of context.modelTexts) {
      if (modelText.field === 'name' || modelText.field.endsWith('.name')) continue;
      const hits = sentences(normalizeForMatching(modelText.text))
        .map((sentence) => classify(sentence.text, modelText.field.startsWith('parameters.')))
        .filter((hit): hit is Hit => hit !== undefined);
      if (hits.length === 0) continue;
      const targets = [...new Set(hits.flatMap((hit) => hit.what))].map((what) => `\`${what}\``).join(', ');
      context.report({
        ...modelTextFinding(modelText),
        severity: worstSeverity(hits.map((hit) => hit.severity)),
        message: `The ${describeModelText(modelText)} tells the model to access or hand over ${targets}`,
        evidence: clip(hits.map((hit) => hit.sentence).slice(0, 3).join(' … '), 400),
      });
    }
  },
});
