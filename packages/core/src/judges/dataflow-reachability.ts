// Judges a finding by the dataflow behind it: does a value the attacker controls (a tool input, the environment, a
// private file, a payload decoded at run time) reach the sink unguarded?
import type { Category, Finding, JudgeVote, OriginKind, TaintFlow } from '../scan/model.js';
import { isSafeFlow } from '../scan/analysis/catalog.js';
import { findTool, findingSubject, matchFlow, parametersNamed, where } from './finding-context.js';
import { oauthEndpointOf } from './oauth-endpoint.js';
import { packageReach } from './package-reach.js';
import type { Judge, JudgeContext } from './panel.js';

const ID = 'dataflow-reachability';

export const dataflowReachabilityJudge: Judge = {
  id: ID,
  description:
    'Follows the dataflow behind a finding: unguarded flows from tool inputs, the environment, private files or decoded payloads are confirmed, guarded ones dismissed.',
  vote(finding, context) {
    switch (findingSubject(finding, context)) {
      case 'model-text':
        return judgeModelText(finding, context);
      case 'code':
        return judgeCode(finding, context);
      case 'other':
        return vote('uncertain', 'The finding is not about code, so no dataflow bears on it.');
    }
  },
};

function vote(verdict: JudgeVote['verdict'], reason: string): JudgeVote {
  return { judge: ID, verdict, reason };
}

const ORIGIN_NAMES: Record<OriginKind, string> = {
  'tool-input': 'tool input',
  'http-request': 'HTTP request data',
  'remote-response': 'remote server response',
  env: 'environment',
  'sensitive-file': 'private file',
  'decoded-constant': 'run-time decoded constant',
  constant: 'constant',
  unknown: 'value of unknown origin',
};

function describeOrigin(flow: TaintFlow): string {
  const { origin } = flow;
  if (origin.kind === 'tool-input' && origin.tool) return `parameter ${origin.param ?? '?'} of ${origin.tool}`;
  return origin.detail ? `${ORIGIN_NAMES[origin.kind]} ${origin.detail}` : `a ${ORIGIN_NAMES[origin.kind]}`;
}

/**
 * Categories whose harm needs the code to run. A secret is leaked by shipping it, hidden characters and obfuscation
 * are suspicious wherever they are, and install scripts run by npm, not by import.
 */
const NEEDS_TO_RUN: ReadonlySet<Category> = new Set<Category>([
  'command-injection', 'code-injection', 'path-traversal', 'ssrf', 'sql-injection', 'exfiltration', 'insecure-transport', 'tls-disabled', 'excessive-capability',
]);

function judgeCode(finding: Finding, context: JudgeContext): JudgeVote {
  const flow = matchFlow(finding, context.flows);
  const location = finding.location ?? finding.flow?.[finding.flow.length - 1];
  if (location && NEEDS_TO_RUN.has(finding.category)) {
    const reach = packageReach(location.file, context.files, context.manifests);
    if (reach.state === 'unreached') {
      const entries = reach.entries.length > 3 ? `${reach.entries.slice(0, 3).join(', ')} …` : reach.entries.join(', ');
      return vote('dismiss', `Nothing ${reach.pkg} runs loads ${location.file}: neither its entry points (${entries}) nor any module they load names it, so the code at ${where(location)} never runs.`);
    }
  }
  if (!flow) {
    const at = location ? ` at ${where(location)}` : '';
    const oauth = oauthEndpointOf(finding, context);
    if (oauth && location) {
      return oauth.credentials
        ? vote('confirm', `The CORS setup at ${where(location)} lets credentials cross origins on ${oauth.endpoint}, so any page can act there with the user's session.`)
        : vote('dismiss', `No credential crosses origins at ${where(location)}: ${oauth.endpoint} answers public documents or requests that carry their own proof, which a foreign page gains nothing from.`);
    }
    return vote('uncertain', `No analysed dataflow ends${at}, so reachability cannot be judged.`);
  }
  const at = where(flow.sink.location);
  // Cross-file flows are as real as local ones: deep mode follows imports precisely so they count in full.
  const path = flow.crossFile ? ' across files' : '';
  if (isSafeFlow(flow)) {
    return vote('dismiss', `The flow from ${describeOrigin(flow)} to ${flow.sink.callee} at ${at} is guarded by ${flow.sanitizers.join(', ')}.`);
  }
  const credential = authenticationTo(flow);
  if (credential) {
    return vote('dismiss', `Only ${credential.variable} reaches ${flow.sink.callee} at ${at}, sent to ${credential.host}, the service it is named for: ordinary authentication.`);
  }
  switch (flow.origin.kind) {
    case 'tool-input':
    case 'http-request':
    case 'remote-response':
    case 'env':
    case 'sensitive-file':
    case 'decoded-constant':
      return vote('confirm', `The ${describeOrigin(flow)} reaches ${flow.sink.callee} at ${at}${path} with no guard on the way.`);
    case 'constant':
      return vote('dismiss', `Only a constant reaches ${flow.sink.callee} at ${at}; no caller can change it.`);
    case 'unknown':
      return vote('uncertain', `The value reaching ${flow.sink.callee} at ${at} has an unknown origin.`);
  }
}

/** Name parts that say "a credential" but not whose: they cannot tie a variable to a host. */
const GENERIC_NAME_PARTS = new Set(['TOKEN', 'SECRET', 'ACCESS', 'BEARER', 'CLIENT', 'PRIVATE', 'PASSWORD', 'PASS', 'AUTH', 'KEYS', 'PROD', 'TEST']);

/**
 * One named environment variable sent to the host it is named after (`OPENWEATHER_API_KEY` to
 * api.openweathermap.org, `GITHUB_TOKEN` to api.github.com) is how API clients authenticate, not exfiltration.
 * The whole environment, or a key sent to an unrelated host, does not qualify.
 */
function authenticationTo(flow: TaintFlow): { variable: string; host: string } | undefined {
  if (flow.origin.kind !== 'env' || !flow.sink.target) return undefined;
  const variable = /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*\b/.exec(flow.origin.detail ?? '')?.[0];
  if (!variable) return undefined;
  let host: string;
  try {
    host = new URL(flow.sink.target).hostname.toLowerCase();
  } catch {
    host = flow.sink.target.toLowerCase();
  }
  const parts = variable.split('_').filter((part) => part.length >= 4 && !GENERIC_NAME_PARTS.has(part));
  return parts.some((part) => host.includes(part.toLowerCase())) ? { variable, host } : undefined;
}

/**
 * A text finding becomes concrete when the parameter it tells the model to fill is sent off by the handler: then the
 * instruction is an exfiltration channel, not just words.
 */
function judgeModelText(finding: Finding, context: JudgeContext): JudgeVote {
  const tool = findTool(finding, context);
  if (!tool) return vote('uncertain', 'No extracted tool matches the finding, so no flow can show its effect.');
  const parameters = parametersNamed(finding, tool).map((parameter) => parameter.name);
  const outbound = context.flows.find(
    (flow) =>
      flow.origin.kind === 'tool-input' &&
      flow.origin.tool === tool.name &&
      parameters.includes(flow.origin.param ?? '') &&
      (flow.sink.kind === 'network-send' || flow.sink.kind === 'email') &&
      !isSafeFlow(flow),
  );
  if (outbound) {
    return vote('confirm', `Parameter ${outbound.origin.param} of ${tool.name}, which the text points at, reaches ${outbound.sink.callee} at ${where(outbound.sink.location)}.`);
  }
  if (parameters.length === 0) {
    return vote('uncertain', `The text names no parameter of ${tool.name}, so no dataflow shows its effect.`);
  }
  return vote('uncertain', `No flow sends parameter ${parameters.join(', ')} of ${tool.name} over the network, so the text's effect is unproven.`);
}
