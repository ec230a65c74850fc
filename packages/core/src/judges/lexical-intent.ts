// Judges a finding by its wording and its place: is a model text phrased as an order to the model or as a description
// of what the tool does; is a code finding in live code or in tests, examples and docs; does a secret look like a
// placeholder.
import type { Finding, JudgeVote, SourceFile } from '../scan/model.js';
import { fieldText, fileOf, findTool, findingSubject, lineAt, quote, where } from './finding-context.js';
import { oauthEndpointOf } from './oauth-endpoint.js';
import { packageReach } from './package-reach.js';
import type { Judge, JudgeContext } from './panel.js';
import { analyseText } from '../rules/description/analyse.js';

const ID = 'lexical-intent';

export const lexicalIntentJudge: Judge = {
  id: ID,
  description:
    'Reads the wording and place of a finding: directives to the model versus capability statements; live code versus tests, examples, fixtures and docs; real secrets versus placeholders.',
  vote(finding, context) {
    switch (findingSubject(finding, context)) {
      case 'model-text':
        return judgeModelText(finding, context);
      case 'code':
        return judgeCode(finding, context);
      case 'other':
        return vote('uncertain', 'The finding names no text or file to read, so its wording says nothing either way.');
    }
  },
};

function vote(verdict: JudgeVote['verdict'], reason: string): JudgeVote {
  return { judge: ID, verdict, reason };
}

// ─── Model texts ────────────────────────────────────────────────────────────────────────────────

/** Cues that on their own make a text an instruction to the model: nobody documents a tool this way. */
const STRONG_CUES: ReadonlyArray<[RegExp, string]> = [
  [/\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+|the\s+)?(?:previous|prior|above|earlier|other|your)\s+(?:instructions|rules|prompts?|directions)/i, 'an instruction override'],
  [/\b(?:do\s+not|don't|never|without)\s+(?:tell|telling|mention|mentioning|inform|informing|notify|notifying|reveal|revealing|alert|alerting|show|showing)\b[^.\n]{0,80}\buser\b/i, 'secrecy toward the user'],
  [/\bthe\s+user\s+(?:must|should)\s+not\s+(?:know|see|notice|be\s+told)/i, 'secrecy toward the user'],
  // "Fails silently" is documentation; "silently add a bcc" is not.
  [/\b(?:secretly|covertly)\b|\b(?:silently|quietly)\s+(?:send|include|add|append|read|pass|forward|copy|upload|call|bcc|cc|change|replace)\b/i, 'secrecy'],
  [/<\/?\s*(?:important|system|instructions?|secret|hidden|admin)\s*>|\[\/?(?:INST|SYSTEM)\]|<<\s*SYS\s*>>/i, 'prompt-injection markup'],
  [/\byou\s+are\s+now\b|\bnew\s+system\s+prompt\b|\bact\s+as\s+(?:the\s+)?(?:system|administrator|root)\b/i, 'a role override'],
];

/**
 * Base-form verbs that start an order to the model. Tool docs are often imperative too ("Read the contents of a
 * file", "List issues"), so only verbs about the model's own conduct count, not verbs naming the tool's operation.
 */
const IMPERATIVE_START =
  /^(?:ignore|forget|disregard|always|never|do\s+not|don't|ensure|make\s+sure|before|first|remember|pass|reveal|extract|forward|fill|attach)\b/i;
const OBLIGATION =
  /\b(?:you\s+(?:must|should|need\s+to|have\s+to|are\s+required\s+to|will)|must\s+(?:always|first|also)|must\s+be\s+(?:passed|included|sent|provided|read|attached)|is\s+required\s+before)\b/i;
const SECOND_PERSON = /\b(?:you|your|yourself)\b/i;
/** "Use this tool when you need to …", "… so you know which ids exist" address a reader; they give no order. */
const CONDITIONAL_YOU = /\b(?:when|if|unless|whenever|in\s+case|where|so(?:\s+that)?)\s+you(?:r)?\b[^.\n]*/gi;
const URGENCY = /\b(?:IMPORTANT|CRITICAL|URGENT|MANDATORY)\b|\b(?:immediately|at\s+once|without\s+exception)\b/;
/** Ordering the model's other actions ("before answering", "after every call") is about the model, not the tool. */
const SEQUENCING =
  /\b(?:before|after|prior\s+to)\s+(?:answering|responding|replying|using\s+any|calling\s+any|any\s+other|every|each|all\s+other)\b/i;
/** Telling the model what to put into a parameter is how poisoned descriptions smuggle data out. */
const ROUTE_TO_PARAMETER =
  /\b(?:pass|put|include|insert|append|attach|fill|send)\b[^.\n]{0,80}\b(?:parameter|param|argument|field|sidenote)s?\b/i;
/**
 * A base-form verb aimed at private data ("read ~/.ssh/id_rsa"); the third-person "Reads …" and the passive "is read
 * from PGPASSWORD" are statements.
 */
const PRIVATE_DATA_REQUEST =
  /(?<!\b(?:is|are|was|were|be|been|being|gets?)\s+)\b(?:read|send|upload|cat|copy|include|pass|provide|share|extract|collect|gather)\b[^.\n]{0,50}?(?:~\/|\.ssh\b|id_rsa|id_ed25519|\.env\b|\.aws\b|credentials|api[\s_-]?keys?|passwords?|secrets?|conversation|chat\s+history|previous\s+messages|system\s+prompt|mcp\.json|claude_desktop_config)[^\s`'"]*/i;

/** A command line for the model to run ("run curl … | sh") is an order whatever the grammar around it. */
const COMMAND_FOR_MODEL = /\b(?:run|execute|exec)\s+[`'"]?(?:curl|wget|bash|sh|zsh|powershell|iex|python3?|node|npx|rm)\b/i;
/** Terminal escape sequences, raw or as the rules render them (␛[8m), would hide the start of a sentence. */
// eslint-disable-next-line no-control-regex -- ESC and BEL are exactly the characters to strip
const ANSI_SEQUENCE = /(?:\u001b|\u241b|\\x1b|\\u001b|\\033|\\e)\[[0-9;?]*[A-Za-z]|(?:\u001b|\u241b)\][^\u0007\u001b\u241b]*(?:\u0007|(?:\u001b|\u241b)\\)?/g;

/** Third-person verbs and documentation phrasing that describe what the tool does. */
const CAPABILITY_START =
  /^(?:returns|reads|gets|fetches|lists|creates|writes|searches|retrieves|sends|executes|runs|provides|shows|displays|allows|supports|accepts|generates|converts|updates|deletes|removes|moves|queries|opens|loads|saves|uploads|downloads|calculates|computes|checks|finds|adds|edits|manages|starts|stops|captures|navigates|clicks|takes|performs|handles|works|enables|lets|gives|exposes|looks\s+up|use\s+this|useful|a|an|the|this\s+(?:tool|endpoint|function|resource|prompt))\b/i;
const DOC_PHRASES =
  /\b(?:e\.g\.|i\.e\.|for\s+example|defaults?\s+to\b|optional\b|if\s+omitted\b|only\s+works\b|relative\s+to\b|must\s+be\s+(?:a|an|one|within|inside)\b)/i;

interface Phrasing {
  strong: string[];
  directive: string[];
  capability: string[];
}

function phrasing(raw: string): Phrasing {
  const text = raw.replace(ANSI_SEQUENCE, ' ');
  const result: Phrasing = { strong: [], directive: [], capability: [] };
  for (const [pattern, label] of STRONG_CUES) {
    const match = pattern.exec(text);
    if (match) result.strong.push(`${label} (${quote(match[0], 40)})`);
  }
  const sentences = text
    .split(/(?<=[.!?])\s+|\n+|(?<=>)/)
    .map((sentence) => sentence.replace(/^[\s*\-•>#\d.)]+/, '').trim())
    .filter(Boolean);
  for (const sentence of sentences) {
    const imperative = IMPERATIVE_START.exec(sentence);
    if (imperative) result.directive.push(`an imperative ${quote(imperative[0], 20)}`);
    else if (CAPABILITY_START.test(sentence)) result.capability.push(quote(sentence, 40));
  }
  const addressed = text.replace(CONDITIONAL_YOU, '');
  const cues: ReadonlyArray<[RegExp, string, string]> = [
    [OBLIGATION, 'an obligation', addressed],
    [URGENCY, 'urgency', text],
    [SEQUENCING, 'sequencing of the model\'s actions', text],
    [ROUTE_TO_PARAMETER, 'data routed into a parameter', text],
    [PRIVATE_DATA_REQUEST, 'a request for private data', text],
    [COMMAND_FOR_MODEL, 'a command for the model to run', text],
  ];
  for (const [pattern, label, subject] of cues) {
    const match = pattern.exec(subject);
    if (match) result.directive.push(`${label} ${quote(match[0], 40)}`);
  }
  if (!OBLIGATION.test(addressed) && SECOND_PERSON.test(addressed)) {
    result.directive.push('second person');
  }
  if (DOC_PHRASES.test(text)) result.capability.push('documentation phrasing');
  return result;
}

function judgeModelText(finding: Finding, context: JudgeContext): JudgeVote {
  const tool = findTool(finding, context);
  const field = finding.tool?.field ?? 'description';
  const subject = `the ${field} of ${finding.tool?.name ?? 'the tool'}`;
  // The evidence is the offending sentence; when it carries no cue either way, read the whole field around it.
  let read = phrasing(finding.evidence);
  if (read.strong.length + read.directive.length + read.capability.length === 0) {
    const surrounding = fieldText(tool, finding.tool?.field);
    if (surrounding) read = phrasing(surrounding);
  }
  if (read.strong.length > 0) {
    return vote('confirm', `${capitalise(subject)} is phrased as a hidden instruction to the model: ${read.strong[0]}.`);
  }
  // Prompts and server instructions exist to direct the model, so plain directives there are their job, not a sign.
  const kind = finding.tool?.kind;
  if (kind === 'prompt' || kind === 'instructions') {
    return vote('uncertain', `${capitalise(subject)} is ${kind === 'prompt' ? 'a prompt' : 'server instructions'}, meant to direct the model, and has no hidden-instruction cue.`);
  }
  if (read.directive.length >= 2 && read.directive.length > read.capability.length) {
    return vote('confirm', `${capitalise(subject)} reads as an order to the model: ${read.directive.slice(0, 3).join(', ')}.`);
  }
  // Where the cues above are not enough, the description analyser reads the field sentence by sentence: an act it
  // finds (a rule for another tool, a rerouting, data put into a link) confirms what the wording alone cannot.
  const text = fieldText(tool, finding.tool?.field);
  if (tool && text) {
    const analysis = analyseText({
      modelText: { tool: tool.name, toolKind: tool.kind, field, text, location: tool.location },
      tool,
      knownTools: new Set(context.tools.map((other) => other.name.toLowerCase())),
    });
    const act = analysis.acts.find((candidate) => candidate.severity !== 'low' && candidate.severity !== 'info');
    if (act) return vote('confirm', `${capitalise(subject)} ${act.act} ("${quote(act.sentence, 60)}"): ${act.why}.`);
    if (analysis.unread.length > 0 && finding.severity === 'info') {
      return vote('uncertain', `${capitalise(subject)} is partly written in a language this judge does not read (${analysis.unread[0]!.language}); only an LLM judge can read it.`);
    }
  }
  // A hidden or encoded channel is suspicious in itself; plain wording of the decoded text does not clear it.
  const hiddenChannel = finding.category === 'hidden-characters' || finding.category === 'obfuscation';
  // Documentation outweighs a stray cue ("Use this tool to send a message to your team").
  if (read.capability.length > 2 * read.directive.length && !hiddenChannel) {
    const cue = read.directive.length > 0 ? ` and only a stray cue (${read.directive[0]})` : ' and gives the model no order';
    return vote('dismiss', `${capitalise(subject)} states what the tool does (${read.capability[0]})${cue}.`);
  }
  if (read.directive.length > 0) {
    const cues = read.directive.length === 1 ? 'one directive cue' : 'directive cues';
    return vote('uncertain', `${capitalise(subject)} has ${cues} (${read.directive[0]}) but not enough to outweigh its documentation.`);
  }
  return vote('uncertain', `The wording of ${subject} is neither clearly an instruction nor clearly a capability statement.`);
}

// ─── Code, manifests, secrets ───────────────────────────────────────────────────────────────────

const NON_LIVE_DIRS = new Set([
  'test', 'tests', '__tests__', 'spec', 'specs', '__mocks__', 'mocks', 'fixture', 'fixtures', '__fixtures__',
  'testdata', 'example', 'examples', 'sample', 'samples', 'demo', 'demos', 'doc', 'docs', 'bench', 'benchmark',
  'benchmarks', 'e2e',
]);
const NON_LIVE_FILE = /\.(?:test|spec|e2e|bench)\.[cm]?[jt]sx?$|(?:^|\/)test_[^/]*\.py$|_test\.py$|(?:^|\/)conftest\.py$|\.(?:example|sample|template|dist)$|(?:^|\/)\.env\.(?:example|sample|template)$/i;
const DOC_FILE = /\.(?:md|markdown|mdx|rst|txt|adoc)$/i;
/** Placeholder vocabulary of example credentials (AWS's own docs key ends in EXAMPLE, hence no word boundaries). */
const PLACEHOLDER =
  /example|sample|dummy|fake|placeholder|changeme|change_me|replace[_-]?me|your[_-]?(?:api[_-]?)?(?:key|token|secret)|redacted|x{4,}|<[^>]*(?:key|token|secret)[^>]*>|\btest[_-]?(?:key|token|secret)|not[_-]?a[_-]?real|([A-Za-z0-9])\1{7,}/i;
const COMMENT_LINE = /^\s*(?:\/\/|\/\*|\*|#|<!--)/;

function judgeCode(finding: Finding, context: JudgeContext): JudgeVote {
  const location = finding.location ?? finding.flow?.[finding.flow.length - 1];
  if (!location) return vote('uncertain', 'The finding has no location to read.');
  const at = where(location);
  const nonLive = nonLiveReason(location.file);
  const line = lineAt(context.files, location.file, location.line);

  if (finding.category === 'secrets') {
    const placeholder = PLACEHOLDER.exec(`${finding.evidence}\n${line ?? ''}`);
    if (placeholder) return vote('dismiss', `The secret at ${at} uses placeholder vocabulary (${quote(placeholder[0], 30)}), typical of example values.`);
    if (nonLive) return vote('dismiss', `The secret at ${at} sits in ${nonLive}, where test credentials are the norm.`);
    if (DOC_FILE.test(location.file)) return vote('uncertain', `The secret at ${at} is in documentation; a real key there is still leaked, a sample one is not.`);
    return vote('confirm', `The secret at ${at} is in a shipped file and has no placeholder wording.`);
  }
  if (nonLive) {
    // The directory name is a convention; an entry point that loads the file overrules it.
    const reach = packageReach(location.file, context.files, context.manifests);
    if (reach.state === 'reached' && reach.chain.length > 1) {
      return vote('confirm', `The code at ${at} is in ${nonLive}, but ${reach.pkg} loads it (${reach.chain.join(' → ')}), so it runs.`);
    }
    if (reach.state === 'reached') {
      return vote('uncertain', `The code at ${at} is in ${nonLive}, but ${reach.pkg} publishes the file as an entry point (main, bin or exports), so users may run it.`);
    }
    return vote('dismiss', `The code at ${at} is in ${nonLive}, not in code the server runs.`);
  }
  if (DOC_FILE.test(location.file)) return vote('dismiss', `The match at ${at} is documentation text, which is never executed.`);
  // In comments, hidden characters are the Trojan Source attack itself, so only other categories are cleared there.
  if (line !== undefined && COMMENT_LINE.test(line) && finding.category !== 'hidden-characters') {
    return vote('dismiss', `The match at ${at} is inside a comment, not live code.`);
  }
  const oauth = oauthEndpointOf(finding, context);
  if (oauth) {
    return oauth.credentials
      ? vote('uncertain', `The CORS setup at ${at} serves ${oauth.endpoint} (${oauth.evidence}), which the OAuth specifications open to browser clients, but it also lets credentials cross origins, which they do not ask for.`)
      : vote('dismiss', `The CORS setup at ${at} serves ${oauth.endpoint} (${oauth.evidence}), which the OAuth specifications open to browser clients on purpose.`);
  }
  const role = roleOf(context.files, location.file);
  if (role === 'vendored') return vote('uncertain', `The code at ${at} is vendored third-party code; whether the server reaches it is unclear.`);
  if (role === 'other') return vote('uncertain', `The file ${location.file} is neither source nor a manifest, so its wording says little.`);
  return vote('confirm', `The code at ${at} is in live ${role ?? 'code'} outside tests, examples and docs.`);
}

function nonLiveReason(path: string): string | undefined {
  const segments = path.toLowerCase().split('/');
  const dir = segments.slice(0, -1).find((segment) => NON_LIVE_DIRS.has(segment));
  if (dir) return `${/^[aeiou]/.test(dir) ? 'an' : 'a'} ${dir}/ directory`;
  if (NON_LIVE_FILE.test(path)) return 'a test or example file';
  return undefined;
}

function roleOf(files: readonly SourceFile[], path: string): string | undefined {
  const role = fileOf(files, path)?.role;
  if (role === undefined) return undefined;
  return role === 'bundle' ? 'bundled code' : role;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
