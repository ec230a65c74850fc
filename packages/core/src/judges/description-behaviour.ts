// Compares what a tool says it does with what its code does. Declared behaviour is a design choice to be reviewed;
// undeclared behaviour (a "get the weather" tool that runs shell commands) is the signature of a trojan.
import type { Finding, JudgeVote, SinkKind, TaintFlow, ToolDefinition } from '../scan/model.js';
import {
  INJECTION_CATEGORIES,
  findTool,
  findingSubject,
  matchFlow,
  parametersNamed,
  quote,
  where,
  words,
} from './finding-context.js';
import type { Judge, JudgeContext } from './panel.js';
import { DECLARES } from '../rules/support/declared-behaviour.js';

const ID = 'description-behaviour';

export const descriptionBehaviourJudge: Judge = {
  id: ID,
  description:
    "Compares a tool's description with its code: declared capabilities are design choices, undeclared ones (a weather tool reaching a shell) are confirmed.",
  vote(finding, context) {
    switch (findingSubject(finding, context)) {
      case 'model-text':
        return judgeModelText(finding, context);
      case 'code':
        return judgeCode(finding, context);
      case 'other':
        return vote('uncertain', 'The finding concerns no tool, so there is no description to compare with behaviour.');
    }
  },
};

function vote(verdict: JudgeVote['verdict'], reason: string): JudgeVote {
  return { judge: ID, verdict, reason };
}


const SINK_NAMES: Record<SinkKind, string> = {
  command: 'runs commands',
  code: 'evaluates code',
  deserialize: 'deserialises data',
  'file-read': 'reads files',
  'file-write': 'writes files',
  network: 'makes network requests',
  'network-send': 'sends data over the network',
  sql: 'runs SQL',
  email: 'sends email',
  'tool-result': 'returns secrets to the model',
  allocation: 'allocates or loops by a size it is given',
  regex: 'compiles regular expressions',
  log: 'writes secrets to its logs',
};

/** Path segments that say where a file lives, not what it is: naming them does not declare the file. */
const LOCATION_WORDS = new Set(['home', 'user', 'users', 'config', 'local', 'share', 'library', 'application', 'support', 'appdata', 'roaming', 'etc', 'var']);

/**
 * Whether a tool's text names the private data a flow sends: the environment for `env`, the file's own name parts
 * (`ssh`, `rsa`, `aws`, `credentials`) for a sensitive file. "Back up editor settings" does not declare ~/.ssh/id_rsa.
 */
function declaresData(text: string, origin: TaintFlow['origin']): boolean {
  if (origin.kind === 'env') return /\b(?:env|environment|variables?)\b/.test(text);
  const parts = words(origin.detail ?? '')
    .split(/[^a-z0-9]+/)
    .filter((part) => part.length >= 3 && !LOCATION_WORDS.has(part));
  return parts.some((part) => new RegExp(`\\b${part}\\b`).test(text));
}

/** Everything the model is told about a tool: name, title, description, parameter names and descriptions. */
function declaredText(tool: ToolDefinition, options: { description: boolean }): string {
  const parts = [tool.name, tool.title ?? ''];
  if (options.description) parts.push(tool.description ?? '');
  for (const parameter of tool.parameters) {
    parts.push(parameter.name);
    if (options.description) parts.push(parameter.description ?? '');
  }
  return words(parts.join(' \n '));
}

function declares(tool: ToolDefinition, kind: SinkKind, options = { description: true }): boolean {
  return DECLARES[kind].test(declaredText(tool, options));
}

// ─── Code findings ──────────────────────────────────────────────────────────────────────────────

function judgeCode(finding: Finding, context: JudgeContext): JudgeVote {
  const flow = matchFlow(finding, context.flows);
  if (!flow) return vote('uncertain', 'No dataflow links this finding to a tool, so there is no behaviour to compare.');
  const tool = findTool(finding, context, flow);
  if (tool) return judgeToolFlow(finding, flow, tool);
  return judgeOrphanFlow(flow, context);
}

function judgeToolFlow(finding: Finding, flow: TaintFlow, tool: ToolDefinition): JudgeVote {
  const kind = flow.sink.kind;
  const at = where(flow.sink.location);
  const declared = declares(tool, kind);
  const label = `${tool.kind} ${tool.name}`;
  if (!declared) {
    return vote('confirm', `The ${label} never says it ${SINK_NAMES[kind]}, yet its input reaches ${flow.sink.callee} at ${at}: undeclared behaviour.`);
  }
  if (finding.category === 'excessive-capability') {
    const annotations = tool.annotations ?? {};
    const claim = annotations.readOnlyHint === true ? 'readOnlyHint' : annotations.destructiveHint === false ? 'destructiveHint: false' : undefined;
    if (claim && kind !== 'file-read' && kind !== 'network') {
      return vote('confirm', `The ${label} ${SINK_NAMES[kind]} at ${at} while its annotations claim ${claim}.`);
    }
    if (annotations.destructiveHint === true) {
      return vote('dismiss', `The ${label} declares that it ${SINK_NAMES[kind]} and is annotated destructiveHint, so clients ask before calling it.`);
    }
    return vote('confirm', `The ${label} declares that it ${SINK_NAMES[kind]} but lacks a destructiveHint annotation, so clients may call it unasked.`);
  }
  if (flow.origin.kind === 'env' || flow.origin.kind === 'sensitive-file') {
    const what = flow.origin.detail ?? flow.origin.kind;
    if (!declaresData(declaredText(tool, { description: true }), flow.origin)) {
      return vote('confirm', `The ${label} says it ${SINK_NAMES[kind]} but never mentions ${what}, which its code sends at ${at}.`);
    }
    return vote('uncertain', `The ${label} declares sending data and names ${what}, so sending it may be its purpose.`);
  }
  if (INJECTION_CATEGORIES.has(finding.category)) {
    return vote('uncertain', `The ${label} declares that it ${SINK_NAMES[kind]}, so the sink is intended; whether its input is injectable is for the dataflow.`);
  }
  return vote('uncertain', `The ${label} declares that it ${SINK_NAMES[kind]}, matching the code at ${at}.`);
}

/**
 * A flow with no origin tool (process.env, a decoded constant, a sensitive file): the code runs on behalf of some
 * tool of the same file, or of the server at large. If none of them declares the behaviour, nobody asked for it.
 */
function judgeOrphanFlow(flow: TaintFlow, context: JudgeContext): JudgeVote {
  const kind = flow.sink.kind;
  const at = where(flow.sink.location);
  const sameFile = context.tools.filter((tool) => tool.location.file === flow.sink.location.file);
  const candidates = sameFile.length > 0 ? sameFile : context.tools;
  if (candidates.length === 0) {
    return vote('uncertain', `The server declares no tools, so nothing says whether ${flow.sink.callee} at ${at} is expected.`);
  }
  const scope = sameFile.length > 0 ? `in ${flow.sink.location.file}` : 'of the server';
  const declaring = candidates.filter((tool) => declares(tool, kind));
  if (declaring.length === 0) {
    return vote('confirm', `No tool ${scope} says it ${SINK_NAMES[kind]}, yet the code does so at ${at}.`);
  }
  const privateData = flow.origin.kind === 'env' || flow.origin.kind === 'sensitive-file';
  if (privateData && !declaring.some((tool) => declaresData(declaredText(tool, { description: true }), flow.origin))) {
    return vote('confirm', `Tools ${scope} say they ${SINK_NAMES[kind].replace(/^(\w+?)s\b/, '$1')} but none mentions ${flow.origin.detail ?? flow.origin.kind}, which the code sends at ${at}.`);
  }
  return vote('uncertain', `The ${declaring[0]?.kind} ${declaring[0]?.name} declares that it ${SINK_NAMES[kind]}, which may cover the code at ${at}.`);
}

// ─── Model-text findings ────────────────────────────────────────────────────────────────────────

/** A verb in the passive ("the password is read from …") describes the tool; only the active form asks for action. */
const ACTIVE = String.raw`(?<!\b(?:is|are|was|were|be|been|being|gets?)\s+)`;

/** What a suspicious text asks for, in sink terms ("read ~/.ssh/id_rsa and send it" → file-read, network-send). */
const REQUESTS: ReadonlyArray<[SinkKind, RegExp]> = [
  ['file-read', new RegExp(String.raw`${ACTIVE}\b(?:read|open|cat|load)\b|\bcontents?\s+of\b|~\/|\.ssh\b|id_rsa|\.env\b|\.aws\b|mcp\.json|claude_desktop_config|\/etc\/`, 'i')],
  ['network-send', new RegExp(String.raw`${ACTIVE}\b(?:send|post|upload|forward|transmit|exfiltrate|submit)\b|\bwebhook|https?:\/\/`, 'i')],
  ['command', /\b(?:run|execute|exec)\b[^.\n]{0,30}\b(?:command|shell|script|bash|curl|wget)\b|\b(?:curl|wget|bash|sh\s+-c|powershell)\b/i],
  ['email', /\b(?:e-?mail|bcc|cc)\b/i],
];

/**
 * Tool names a text mentions: `steered` when it talks about another tool's behaviour ("the send_email tool must …"),
 * `invoked` when it only asks the model to call one ("always call list_notebooks first"). Parameter names are not tools.
 */
function toolsReferenced(text: string, context: JudgeContext): { steered: string[]; invoked: string[] } {
  const parameters = new Set(context.tools.flatMap((tool) => tool.parameters.map((parameter) => parameter.name)));
  const collect = (pattern: RegExp) => [
    ...new Set([...text.matchAll(pattern)].map((match) => match[1]).filter((name): name is string => !!name && !parameters.has(name))),
  ];
  return {
    steered: collect(/[`'"]?\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)[`'"]?\s+tool\b/gi),
    invoked: collect(/\b(?:call|use|invoke|run|calling|using|invoking)\s+(?:the\s+)?[`'"]?([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b/gi),
  };
}

function judgeModelText(finding: Finding, context: JudgeContext): JudgeVote {
  const tool = findTool(finding, context);
  if (!tool) return vote('uncertain', `No extracted tool is named ${quote(finding.tool?.name ?? '', 40)}, so its behaviour cannot be compared.`);
  const label = `${tool.kind} ${tool.name}`;
  const flows = context.flows.filter((flow) => flow.origin.kind === 'tool-input' && flow.origin.tool === tool.name);

  // A parameter the text points at that the handler ships off is the exfiltration channel itself.
  const named = parametersNamed(finding, tool).map((parameter) => parameter.name);
  const shipped = flows.find(
    (flow) => named.includes(flow.origin.param ?? '') && (flow.sink.kind === 'network-send' || flow.sink.kind === 'email'),
  );
  if (shipped) {
    return vote('confirm', `The text steers data into parameter ${shipped.origin.param}, which the ${label} sends out via ${shipped.sink.callee} at ${where(shipped.sink.location)}.`);
  }

  // Steering a tool the server does not define is shadowing: the text reaches into another server's behaviour. An
  // extractor can miss one of the server's own tools, so merely asking to call an unknown tool is not enough.
  const { steered, invoked } = toolsReferenced(finding.evidence, context);
  const own = new Set(context.tools.map((candidate) => candidate.name));
  const foreignTools = steered.filter((name) => !own.has(name));
  if (foreignTools.length > 0) {
    return vote('confirm', `The text steers ${foreignTools.join(', ')}, which this server does not define, so it reaches into another server's tools.`);
  }

  const requested = REQUESTS.filter(([, pattern]) => pattern.test(finding.evidence)).map(([kind]) => kind);
  if (requested.length === 0) {
    const referenced = [...new Set([...steered, ...invoked])].filter((name) => name !== tool.name);
    if (referenced.length > 0 && referenced.every((name) => own.has(name))) {
      return vote('dismiss', `The text only coordinates tools of this same server (${referenced.join(', ')}) and asks for nothing else.`);
    }
    return vote('uncertain', `The text asks for nothing the ${label}'s code could be compared with.`);
  }
  // Judge against the tool's name and parameters and its code, not its description: the description is the suspect.
  const performed = new Set(flows.map((flow) => flow.sink.kind));
  const fits = (kind: SinkKind) => performed.has(kind) || declares(tool, kind, { description: false });
  const foreign = requested.filter((kind) => !fits(kind));
  if (foreign.length === 0) {
    return vote('dismiss', `The text describes what the ${label} is and does (it ${requested.map((kind) => SINK_NAMES[kind]).join(' and ')}), so it reads as documentation of its own behaviour.`);
  }
  return vote('confirm', `The text asks the model to do what the ${label} itself never does (${foreign.map((kind) => SINK_NAMES[kind]).join(', ')}), so it directs the model beyond the tool.`);
}
