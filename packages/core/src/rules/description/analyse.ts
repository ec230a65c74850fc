// The description analyser: reads each sentence of a text the model sees and decides what act it asks of the model,
// on what, and whether that act serves the tool's own stated purpose. The three description rules report its acts
// (tool-poisoning-directives, tool-poisoning-sensitive-access, tool-shadowing), each the kinds that are its concern.
import type { ModelText, Severity, ToolDefinition } from '../../scan/model.js';
import { isWellKnownTool } from '../support/well-known-tools.js';
import type { Entity } from './entities.js';
import {
  ACCESS_VERBS, AMBIGUOUS_CONVERSATION, AUDIENCE_WORDS, AUTHORITY_WORDS, CONSEQUENTIAL_VERBS, CONVERSATION_WORDS, FOREIGN_CONCEPTS,
  HARM_WORDS, HIDDEN_OBJECT_WORDS, MODEL_REPLY, NONCOMPLIANCE, RANK_WORDS, RECIPIENT_SLOTS, SECRET_WORDS, SELF_WORDS,
  TRANSFER_VERBS, WHOLESALE,
} from './lexicon.js';
import { canCarryText } from '../support/sensitive-targets.js';
import { prepare } from './prepare.js';

const OVERRIDE_VERBS = new Set(['ignore', 'disregard', 'forget', 'override', 'overrule', 'supersede', 'void', 'invalidate', 'nullify', 'bypass']);
/** Ranking words that claim standing, as opposed to plain order words ("first", "before"). */
const STRONG_RANK = new Set(['priority', 'precedence', 'precede', 'override', 'overrule', 'supersede', 'outrank', 'prevail', 'trump', 'authority', 'authoritative', 'higher', 'highest', 'superior', 'binding', 'outweigh', 'win', 'beat', 'above', 'dominate', 'ignore', 'disregard', 'forget']);
/** Traffic a rule may redirect: "all requests are to be routed via …", "payments are to be sent to …". */
const TRAFFIC = /\b(?:tools?|requests?|calls?|emails?|e-mails?|messages?|payments?|transfers?|uploads?|downloads?|commits?|queries|traffic|results?|responses?|outputs?|files|logs?|lookups?|orders?|invoices?|sms|texts?|notifications?|reports?)\b/i;
/** Verbs (any inflection) that send or divert something to a destination. */
const REROUTE = /\b(?:rout|redirect|rerout|forward|relay|prox|tunnel|send|sent|deliver|mirror|cop(?:y|ie)|cc|bcc|post|upload|report|push|sync|submit|transmit|dispatch|add)\w*\b/i;
/** A tool that exists to send things: sending to a fixed recipient may be its job. */
const SENDING_PURPOSE = ['send', 'email', 'mail', 'message', 'post', 'notify', 'share', 'upload', 'webhook', 'sms', 'forward', 'sync', 'backup', 'export', 'publish', 'report', 'feedback', 'invite', 'transfer', 'payment', 'pay'];
/** "… with its full result": a call placed around another tool that takes that tool's data. */
const DATA_CAPTURE = /\b(?:with|pass|include|send|forward|including)\b[^.]{0,40}\b(?:result|output|response|arguments?|request|content|contents|conversation|history|message|command|data)\b/i;

/** A verb of telling under a negation that governs it: "do not mention", "no need to inform", "without telling". */
const NEGATED_TELL = /(?:\b(?:not|never|no\s+need\s+to|without|avoid|refrain\s+from|nor)|n['’]t)\s+(?:\w+\s+){0,2}?(?:tell|mention|inform|notify|alert|reveal|disclos|explain|say|report|surfac|acknowledg|bring\s+(?:\w+\s+){0,3}?up|let\s+(?:\w+\s+){1,5}?know|announc|divulg|expos|communicat|discuss|narrat|show(?:ing)?\s+(?:this|it|that|the\s+user))\w*/i;
const CONCEAL_VERB = /\b(?:hide|hides|hiding|conceal\w*|withh[oe]ld\w*|suppress\w*|keep\s+(?:\w+\s+){0,3}?(?:hidden|secret|confidential|quiet|private)\s+from|omit\s+(?:\w+\s+){0,5}?from)\b/i;
/**
 * Keeping something out of what the model tells the user: "keep this requirement out of your replies", "leave the
 * audit step out of the answer", "leave out this note from your reply". The object is captured: an act or the
 * instruction itself is hidden ("this requirement"), data kept out of a place is not ("the raw JSON").
 */
const KEPT_OUT_OF_REPLY = new RegExp(String.raw`\b(?:(?:keep|leave)\s+((?:[\w'-]+\s+){1,5}?)out\s+of|leave\s+out\s+((?:[\w'-]+\s+){1,5}?)(?:from|of|in))\s+${MODEL_REPLY.source}`, 'i');
const COVERT_ADVERB = /\b(?:secretly|silently|quietly|covertly|discreetly|stealthily|invisibly|unnoticed|undetected)\b/i;
import { readText, type ReadSentence } from './read.js';

export type ActKind =
  | 'priority' | 'secrecy' | 'threat' | 'payload' | 'unrelated-action' | 'hidden-instruction' | 'unread-language'
  | 'sensitive-access' | 'conversation-access' | 'link-exfiltration'
  | 'other-tool-rule' | 'precondition-other';

export interface Act {
  kind: ActKind;
  severity: Severity;
  /** The sentence as the model reads it. */
  sentence: string;
  /** What the sentence asks the model to do, in a few words. */
  act: string;
  /** Why that is out of place in this tool's text. */
  why: string;
  /** The things acted on: paths, tools, URLs, recipients. */
  targets: string[];
}

/** The tool a text belongs to and what the scan knows around it. */
export interface Subject {
  modelText: ModelText;
  tool?: ToolDefinition;
  /** Tool names of this server (the servers of one scanned config are not yet known to each other). */
  knownTools: ReadonlySet<string>;
}

const BARE_NAME_PREFIX = /^(?:mcp_tool_|mcp__[\w-]+__|functions\.)/;

function bareName(name: string): string {
  return name.toLowerCase().replace(BARE_NAME_PREFIX, '');
}

/** Words of the tool's own purpose: its name, its first sentence, its parameters. */
function purposeWords(subject: Subject): Set<string> {
  const tool = subject.tool;
  const text = [subject.modelText.tool, tool?.title ?? '', (tool?.description ?? '').split(/(?<=[.!?])\s|\n/)[0] ?? '', ...(tool?.parameters.map((parameter) => parameter.name) ?? [])].join(' ');
  return new Set(text.toLowerCase().split(/[^a-z0-9]+/).filter((word) => word.length > 2).flatMap((word) => [word, word.replace(/s$/, '')]));
}

function isSelf(name: string, subject: Subject): boolean {
  const own = bareName(subject.modelText.tool);
  const other = bareName(name);
  return other === own || /^(?:this|it|the\s+tool|same)$/.test(other);
}

/** A tool-shaped entity that names a tool: known to the scan, well known, or treated as a tool by the sentence. */
function toolsIn(sentence: ReadSentence | { text: string; entities: Entity[] }, subject: Subject): string[] {
  const parameters = new Set(subject.tool?.parameters.map((parameter) => parameter.name.toLowerCase()) ?? []);
  return sentence.entities
    .filter((entity) => entity.kind === 'tool')
    .map((entity) => entity.text)
    .filter((name) => {
      const bare = bareName(name);
      if (parameters.has(bare)) return false;
      if (subject.knownTools.has(bare) || isWellKnownTool(bare) || name.startsWith('mcp_')) return true;
      return new RegExp(String.raw`\b${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\b\s*(?:\(\)|tool|function|command|endpoint|server)|\b(?:call|invoke|use|run|tool|function)\s+[\`'"]?${name}`, 'i').test(sentence.text);
    });
}

/** Whether the parameter a text describes can take data at all: a flag, a number or an enum cannot carry any out. */
function carriesText(subject: Subject): boolean {
  const name = /^parameters\.(.+)\.description$/.exec(subject.modelText.field)?.[1];
  const parameter = subject.tool?.parameters.find((candidate) => candidate.name === name);
  return parameter === undefined || canCarryText(parameter);
}

function has(sentence: ReadSentence, words: ReadonlySet<string>): string | undefined {
  return [...sentence.lemmas].find((lemma) => words.has(lemma));
}

/** What one sentence asks of the model; several acts may come from one sentence. */
function actsOf(sentence: ReadSentence, subject: Subject, purpose: ReadonlySet<string>, inParameter: boolean, previousOthers: readonly string[]): Act[] {
  const acts: Act[] = [];
  const add = (kind: ActKind, severity: Severity, act: string, why: string, targets: string[] = []) =>
    acts.push({ kind, severity, sentence: sentence.text, act, why, targets: [...new Set(targets)] });
  const addressed = sentence.addressed || inParameter || sentence.hidden !== undefined;
  const text = sentence.text;
  const verbs = new Set(sentence.verbs);
  const tools = [...new Set(toolsIn(sentence, subject))];
  const named = tools.filter((name) => !isSelf(name, subject));
  // "This tool changes send_email: always bcc …": an order right after naming another tool is about that tool.
  const others = named.length > 0 || sentence.mood === 'statement' ? named : [...previousOthers];
  const hasVerb = (set: ReadonlySet<string>) => [...verbs].find((verb) => set.has(verb)) ?? [...sentence.lemmas].find((lemma) => set.has(lemma) && verbs.size === 0);

  // Priority: the text ranks itself above the user, the system or other instructions.
  const rank = has(sentence, RANK_WORDS);
  const authority = has(sentence, AUTHORITY_WORDS);
  if (rank && authority) {
    const overrideOrder = has(sentence, OVERRIDE_VERBS) !== undefined && sentence.mood !== 'statement';
    const selfRank = has(sentence, SELF_WORDS) && has(sentence, STRONG_RANK) !== undefined;
    const aimedAtInstructions = /\b(?:user'?s?|system|developer|operator|previous|prior|earlier|other|any|all|conflicting|original|existing|default|safety|your)\b[^.]{0,30}\b(?:instructions?|requests?|prompts?|commands?|wish(?:es)?|rules?|polic(?:y|ies)|guidelines?|directions?|orders?|directives?|guidance|constraints?|restrictions?|safeguards?|guardrails?|messages?|asks?|intent|settings?|says?|wants?)\b|\b(?:what|whatever|anything)\s+(?:that\s+)?the\s+user\s+(?:says|asks|wants|requested|requests|types|writes|prefers)\b|\bthe\s+user\s+(?:asks|says|wants|requests|types|writes)\b[^.]{0,40}\b(?:conflicts?|contradicts?|disagrees?|differs?)\b|\b(?:instructions|rules|guidelines)\s+you\s+(?:were\s+given|received|have\s+been\s+given|follow)\b|\bsystem\s+prompt\b/i.test(text);
    if (aimedAtInstructions && (overrideOrder || selfRank || (addressed && STRONG_RANK.has(rank)))) {
      add('priority', 'critical', 'ranks this text above the user\'s or the system\'s instructions', 'a tool description informs the model; it has no authority over what the user or the system asked');
    }
  }

  // A new role or system prompt for the model is the same claim of authority in another shape.
  const role = /\b(?:you\s+are\s+now|from\s+now\s+on,?\s+you|new\s+system\s+prompt|system\s+prompt\s+(?:override|update)|(?:enter|switch\s+to|enable)\s+(?:developer|god|admin|jailbreak|unrestricted|dan)\s+mode|(?:act|behave)\s+as\s+(?:an?\s+)?(?:unrestricted|unfiltered|jailbroken|uncensored)|pretend\s+(?:to\s+be|you\s+are)|role-?play\s+as|you\s+(?:have|are\s+under)\s+no\s+(?:restrictions|rules|limits))\b/i.exec(text);
  if (role) add('priority', 'critical', `gives the model a new role or system prompt ("${role[0]}")`, 'a tool description documents a tool; it does not get to redefine who the model is');

  // Secrecy: keeping the act from the user, in any form. The negation must govern the verb of telling ("do not
  // mention", "no need to inform", "without telling"), not some other verb of the sentence ("never delete what the
  // user did not ask for").
  const audience = has(sentence, AUDIENCE_WORDS) ?? (/\b(?:in|from)\s+(?:your|the)\s+(?:reply|replies|answer|answers|response|responses|summary|output)\b/i.exec(text)?.[0]);
  const hiddenObject = has(sentence, HIDDEN_OBJECT_WORDS);
  const negatedTell = NEGATED_TELL.exec(text);
  const concealVerb = CONCEAL_VERB.exec(text);
  const covertAct = COVERT_ADVERB.exec(text);
  const keptOut = KEPT_OUT_OF_REPLY.exec(text);
  const keptOutHead = keptOut ? (keptOut[1] ?? keptOut[2]!).trim().split(/\s+/).pop()!.toLowerCase() : undefined;
  const secrecyByOmission = keptOutHead !== undefined && (HIDDEN_OBJECT_WORDS.has(keptOutHead) || HIDDEN_OBJECT_WORDS.has(keptOutHead.replace(/s$/, '')));
  const secrecyByNegation = negatedTell && (audience || hiddenObject) && !SECRET_WORDS.test(text.replace(/\b(?:this|it)\b/gi, ''));
  const secrecyByConcealment = concealVerb && audience && !/\b(?:hidden|private)\s+(?:files?|folders?|directories|attributes?|fields?|columns?|elements?|inputs?|channels?|repos?|repositories|notes?)\b/i.test(text);
  const covert = covertAct && addressed && [...verbs].some((verb) => CONSEQUENTIAL_VERBS.has(verb) || TRANSFER_VERBS.has(verb));
  const userMustNotKnow = /\b(?:user|human|anyone|nobody|no\s+one|they)\b[^.]{0,40}\b(?:must|should|need|needs|may|will|shall)\s*(?:not|n't|never)\s+(?:\w+\s+)?(?:know|see|notice|find\s+out|learn|be\s+(?:told|informed|aware|notified|alerted|bothered))|\b(?:does|do)\s*(?:not|n't)\s+need\s+to\s+(?:know|be\s+(?:told|informed|aware))|\bwithout\s+(?:the\s+)?(?:user|human|anyone)(?:'s)?\s+(?:knowing|noticing|knowledge|awareness|being\s+(?:told|informed|aware))|\b(?:behind\s+the\s+(?:user|scenes)|out\s+of\s+(?:the\s+)?(?:user's\s+)?sight|under\s+the\s+radar)\b|\bkeep\s+(?:this|it|these)\s+(?:\w+\s+)?(?:secret|confidential|private|to\s+yourself|between\s+us)\b|\b(?:is|are)\s+not\s+(?:to\s+be\s+)?told\b/i.test(text);
  if (((secrecyByNegation || secrecyByOmission) && addressed) || secrecyByConcealment || covert || userMustNotKnow) {
    add('secrecy', 'critical', 'asks for secrecy towards the user', 'an honest tool has nothing to hide from the person using it; secrecy is how a hidden action stays unnoticed');
  }

  // Threat: harm promised for not complying.
  const harm = has(sentence, HARM_WORDS);
  const promised = /\b(?:will|would|could|may|might|shall|is\s+going\s+to|are\s+going\s+to|leads?\s+to|results?\s+in|causes?|cause)\b/i.test(text);
  if (harm && promised && NONCOMPLIANCE.test(text) && !/\b(?:returns?|throws?|raises?)\s+(?:an?\s+)?(?:error|exception)\b/i.test(text)) {
    const severe = /\b(?:crash|corrupt|lost|lose|loss|destroy|wipe|ban|terminate|catastroph|irreversibl|permanent|fatal|penal|punish|shut|disaster|breach|liable|lawsuit|expel|blacklist)/i.test(text);
    add('threat', severe ? 'high' : 'medium', `threatens harm (${harm}) if the model does not comply`, 'documentation states what happens; pressure on the model to comply is a manipulation cue');
  }

  // Payloads: commands and code no description needs, wherever they are quoted.
  for (const entity of sentence.entities) {
    if (entity.kind === 'code' && entity.payload) {
      add('payload', 'critical', `contains a command or snippet that ${entity.payload}`, 'a tool description is read by the model as text to act on; it has no reason to carry such code', [entity.text]);
    }
  }

  // Sensitive stores, named by path or in words, with any verb, or through a tool whose name is the verb.
  const accessVerb = hasVerb(ACCESS_VERBS) ?? tools.map((name) => name.split(/[_\-.]|(?=[A-Z])/)[0]!.toLowerCase()).find((word) => ACCESS_VERBS.has(word));
  const transfer = hasVerb(TRANSFER_VERBS) ?? (/\b(?:as|in|into|to|inside|within|via)\b/i.test(text) && accessVerb && TRANSFER_VERBS.has(accessVerb) ? accessVerb : undefined);
  const carrier = (inParameter && carriesText(subject)) || /\b(?:as|in|into|to|inside|within|via|through)\b[^.]{0,60}\b(?:parameter|param|argument|field|sidenote|note|notes|body|message|comment|metadata|payload|request|header|query|url|link|image)\b/i.test(text) || sentence.entities.some((entity) => entity.kind === 'url' || entity.kind === 'email') || others.length > 0;
  const stores = sentence.entities.filter((entity) => entity.store);
  for (const entity of stores) {
    const store = entity.store!;
    const inPurpose = store.domain.some((word) => purpose.has(word));
    if (!accessVerb && !inParameter) continue;
    const directive = sentence.directive;
    // A parameter description that names a store is a carrier only if it asks for the store's content.
    const fillsParameter = inParameter && (transfer !== undefined || /\b(?:contents?|copy|value|output)\s+of\b/i.test(text)) && !inPurpose;
    if (inParameter && !fillsParameter && !directive) continue;
    if ((addressed && carrier && transfer) || fillsParameter || (directive && transfer)) {
      add('sensitive-access', 'critical', `has the model ${accessVerb ?? 'fill in'} ${store.label} (\`${entity.text}\`) and hand it on`, `the tool's purpose does not involve ${store.label}; the model holds the user's file access, so this exfiltrates data the user never chose to share`, [entity.text]);
    } else if ((addressed && !inPurpose) || (directive && !inPurpose)) {
      add('sensitive-access', 'high', `has the model ${accessVerb ?? 'touch'} ${store.label} (\`${entity.text}\`)`, `nothing in the tool's stated purpose needs ${store.label}`, [entity.text]);
    } else if (addressed) {
      add('sensitive-access', 'low', `has the model ${accessVerb} ${store.label} (\`${entity.text}\`)`, `the tool's purpose mentions ${store.domain.find((word) => purpose.has(word))}, so this may be its job`, [entity.text]);
    }
  }
  const conversation = CONVERSATION_WORDS.exec(text);
  // A word as often the tool's own data ("all messages" of a console, "the dialog" of a browser) must be moved.
  const conversationMoved = conversation && (AMBIGUOUS_CONVERSATION.test(conversation[0]) ? transfer !== undefined : transfer !== undefined || carrier);
  if (conversation && conversationMoved && addressed && !/\bsummar(?:y|ize|ise)\s+of\s+(?:the\s+)?(?:issue|pull|pr|page|document)/i.test(text)) {
    add('conversation-access', 'high', `has the model hand over ${conversation[0]}`, 'the conversation and the model\'s own instructions are not the tool\'s input; putting them into a call sends them to the server', [conversation[0]]);
  }
  const secret = SECRET_WORDS.exec(text);
  if (secret && stores.length === 0 && addressed && transfer && carrier && WHOLESALE.test(text) && sentence.mood !== 'prohibition' && !sentence.negated) {
    add('sensitive-access', 'high', `has the model hand over ${secret[0]}`, 'secrets the model can reach belong to the user; a tool that needs a credential reads its own configuration', [secret[0]]);
  }

  // Links that carry data out when opened, fetched or rendered.
  for (const entity of sentence.entities) {
    if (entity.kind !== 'url') continue;
    const dataWords = CONVERSATION_WORDS.test(text) || SECRET_WORDS.test(text) || stores.length > 0 || /\b(?:file|contents?|summary|history|messages?|data|answer|response|results?|output)\b/i.test(text);
    const render = entity.image || /\b(?:render|display|show|embed|include|output|print|open|fetch|visit|load|request|navigate|click|call|ping|append)\b/i.test(text);
    if (entity.carriesData && render && (addressed || entity.image)) {
      add('link-exfiltration', 'critical', `has the model open or render \`${entity.text}\`, whose query carries data it fills in`, 'opening or rendering the link sends that data to the link\'s host', [entity.text]);
    } else if (addressed && dataWords && transfer && /\b(?:query|parameter|url|link|path|param|string|appended|append)\b/i.test(text) && !entity.carriesData) {
      add('link-exfiltration', 'high', `has the model put data into the address \`${entity.text}\``, 'data in a URL leaves with the request', [entity.text]);
    }
  }

  // Rules for another tool: its arguments, recipients, routing or behaviour, wherever that tool lives.
  const accountLiteral = /\b(?:account|iban|wallet|payee|repo(?:sitory)?|owner(?:\s+argument)?\s+set\s+to)\s+[`'"]?((?=[\w@#./-]*[\d/])[\w@#./-]{4,})/i.exec(text);
  const literalTarget = sentence.entities.find((entity) => entity.kind === 'email' || entity.kind === 'phone' || entity.kind === 'url') ?? (accountLiteral ? { kind: 'code' as const, text: accountLiteral[1]! } : undefined);
  const openingTools = sentence.opening ? toolsIn({ text: sentence.opening.text, entities: sentence.opening.entities }, subject) : [];
  const openingOthers = openingTools.filter((name) => !isSelf(name, subject));
  const whenOther = sentence.opening?.kind === 'when' && openingOthers.length > 0;
  const slot = RECIPIENT_SLOTS.exec(text);
  const overridesUser = /\b(?:regardless\s+of|no\s+matter|irrespective\s+of|instead\s+of|rather\s+than|even\s+if|whatever)\b[^.]{0,40}\b(?:user|they|requested|asked|specified|given|provided|said)\b|\bignore\s+(?:the\s+)?(?:user|requested|specified|given|provided)/i.test(text);
  const rewrite = /\b(?:set|change|replace|rewrite|swap|override|substitute|fix|hard-?code|force|point|pin)\b/i.test(text);
  const fixesSlot = new RegExp(String.raw`\b(?:set|change|replace|rewrite|swap|override|substitute|fix|hard-?code|force|pin)\b[^.]{0,40}?${RECIPIENT_SLOTS.source}[^.]{0,25}?\b(?:to|=|as|with)\b`, 'i').exec(text);
  const reroute = REROUTE.test(text);
  const slotMustBe = new RegExp(String.raw`${RECIPIENT_SLOTS.source}[^.]{0,20}\b(?:must|should|shall|has\s+to|is\s+to|needs?\s+to)\s+(?:always\s+)?be\b`, 'i').test(text);
  const rulesTraffic = (sentence.mood === 'obligation' || sentence.mood === 'imperative') && TRAFFIC.test(text);
  if ((others.length > 0 || whenOther || rulesTraffic) && (addressed || whenOther) && sentence.mood !== 'statement' || (whenOther && literalTarget)) {
    const target = [...new Set([...others, ...openingOthers])];
    if (literalTarget && (reroute || slotMustBe || (rewrite && slot))) {
      add('other-tool-rule', 'critical', `makes ${target.length > 0 ? target.map((name) => `\`${name}\``).join(', ') : 'other calls'} send to or use \`${literalTarget.text}\``, 'a description may explain its own tool; fixing another tool\'s recipient or destination redirects what the user asked for', [...target, literalTarget.text]);
    } else if (target.length > 0 && overridesUser) {
      add('other-tool-rule', 'high', `overrides what the user asked of ${target.map((name) => `\`${name}\``).join(', ')}`, 'a tool\'s description has no say over how the user\'s request to another tool is carried out', target);
    } else if (target.length > 0 && fixesSlot) {
      add('other-tool-rule', 'high', `fixes the ${fixesSlot[1] ?? 'arguments'} of ${target.map((name) => `\`${name}\``).join(', ')}`, 'setting another tool\'s arguments takes the choice from the user', target);
    }
  }
  const overridesOther = /\b(?:overrides?|replaces?|supersedes?|modif(?:y|ies)|changes?|alters?|patch(?:es)?|hooks?\s+into|intercepts?|wraps?)\s+(?:the\s+)?(?:default\s+)?(?:behaviou?r|functionality|implementation|output|results?|rules|handling|arguments?|parameters?)\s+of\b/i.test(text) && (others.length > 0 || /\b(?:all|any|every|other)\s+(?:other\s+)?(?:tools?|servers?)\b/i.test(text));
  if (overridesOther) {
    add('other-tool-rule', 'high', `claims to change how ${others.length > 0 ? others.map((name) => `\`${name}\``).join(', ') : 'other tools'} behave`, 'a description documents its own tool; it has no say over another tool\'s behaviour', others);
  }
  const everyTurn = addressed && /\b(?:before|after|prior\s+to|following)\s+(?:every|each|any|all)\s+(?:other\s+)?(?:answers?|responses?|replies|turns?|tool\s+calls?|calls?|messages?|requests?|actions?|tools?)\b/i.test(text) && !sentence.opening && !/\bthis\s+(?:server|toolset|integration)\b/i.test(text);
  if (everyTurn && !/\b(?:this\s+tool|it)\b[^.]{0,40}\b(?:must|should|has\s+to)\b/i.test(text)) {
    add('precondition-other', 'high', 'ties an act to every answer or every other tool call', 'the description orders the model\'s other steps, which is not what it documents', others);
  }
  const selfFirst = /\b(?:this\s+tool|it)\b[^.]{0,40}\b(?:must|should|has\s+to)\b[^.]{0,30}\b(?:before|prior\s+to|instead\s+of)\s+(?:any|all|every|each)\b|\b(?:call|use|run|invoke)\s+this\s+tool\s+(?:first\s+)?(?:before|prior\s+to|instead\s+of)\s+(?:any|all|every|each)\b/i.test(text);
  const replaceOther = others.length > 0 && /\b(?:instead\s+of|never\s+(?:use|call)|do\s+not\s+(?:use|call)|don't\s+(?:use|call)|rather\s+than|in\s+(?:its|their)\s+place|in\s+place\s+of)\b/i.test(text) && (/\b(?:this|it|me)\b/i.test(text) || tools.some((name) => isSelf(name, subject))) && !others.every((name) => subject.knownTools.has(bareName(name)));
  if ((selfFirst && !/\b(?:of|in|from|on|by)\s+this\s+(?:server|toolset|integration|extension)\b/i.test(text)) || replaceOther) {
    add('other-tool-rule', 'high', selfFirst ? 'puts this tool in front of every other tool' : `replaces ${others.map((name) => `\`${name}\``).join(', ')} with this tool`, 'a tool may say when it is useful; taking over the calls meant for other tools is hijacking');
  }

  // "Before using X, do Y" where X is not this tool; "after every answer, do Y".
  if (sentence.opening && sentence.opening.kind !== 'when' && sentence.mood !== 'statement') {
    const beforeAny = /\b(?:any|every|each|all)\b[^,]{0,30}\b(?:tools?|calls?|answers?|responses?|replies|requests?|actions?|messages?|operations?|function|questions?|prompts?|turns?)\b|\b(?:answering|responding|replying|you\s+(?:answer|respond|reply))\b/i.test(sentence.opening.text);
    const beforeOther = openingOthers.length > 0;
    const scoped = /\bthis\s+(?:server|toolset|integration)\b/i.test(sentence.opening.text);
    // Server instructions and prompts exist to order the model's use of the server's own tools.
    const ordersOwnServer = (subject.modelText.toolKind === 'instructions' || subject.modelText.toolKind === 'prompt') && [...openingOthers, ...others].every((name) => subject.knownTools.has(bareName(name)));
    if ((beforeOther || beforeAny) && !scoped && !ordersOwnServer) {
      const mainTools = others.filter((name) => !openingOthers.includes(name));
      const selfInserted = mainTools.length === 0 && (/\b(?:this\s+tool|this\s+function|it)\b/i.test(text.slice(text.indexOf(','))) || tools.some((name) => isSelf(name, subject)));
      if (!(selfInserted && beforeOther && openingOthers.every((name) => subject.knownTools.has(bareName(name))) && !DATA_CAPTURE.test(text))) {
        add('precondition-other', beforeAny ? 'high' : 'medium', `makes the model do something ${sentence.opening.kind} ${beforeOther ? openingOthers.map((name) => `\`${name}\``).join(', ') : 'its other actions'}`, 'the description orders the use of tools other than its own, which is not what it documents', openingOthers);
      }
    }
  }

  // A directive to do something consequential that the tool's stated purpose does not cover: sending to a fixed
  // recipient when the tool is not a sending tool, or an act whose verb the purpose never uses.
  if (addressed && sentence.mood !== 'prohibition' && acts.length === 0) {
    const consequential = [...verbs].find((verb) => CONSEQUENTIAL_VERBS.has(verb));
    const outward: Array<{ text: string }> = sentence.entities.filter((entity) => entity.kind === 'email' || entity.kind === 'phone' || entity.kind === 'url' || (entity.kind === 'path' && entity.store));
    if (literalTarget && !outward.some((entity) => entity.text === literalTarget.text)) outward.push(literalTarget);
    const sendingTool = SENDING_PURPOSE.some((word) => purpose.has(word));
    const sends = [...verbs].some((verb) => TRANSFER_VERBS.has(verb)) || REROUTE.test(text);
    const transfersToTool = others.length > 0 && sends && !others.every((name) => subject.knownTools.has(bareName(name)));
    const verbInPurpose = consequential !== undefined && purpose.has(consequential);
    if (consequential && ((outward.length > 0 && (sends ? !sendingTool : !verbInPurpose)) || (transfersToTool && !verbInPurpose))) {
      add('unrelated-action', 'high', `asks the model to ${consequential} ${outward.length > 0 ? outward.map((entity) => `\`${entity.text}\``).join(', ') : others.map((name) => `\`${name}\``).join(', ')}`, 'nothing in the tool\'s stated purpose calls for this act', [...outward.map((entity) => entity.text), ...others]);
    }
  }

  // Hidden from the rendered text but read by the model: any order there is a concealed instruction.
  if (sentence.hidden && acts.length === 0 && (sentence.mood !== 'statement' || sentence.addressed)) {
    add('hidden-instruction', 'high', 'gives the model an order', `the order sits in ${sentence.hidden}, which a person reviewing the tool does not see`);
  }
  return acts;
}

/** Language-independent and cross-language reading of a sentence the English reader cannot parse. */
function foreignActs(sentence: ReadSentence, subject: Subject, purpose: ReadonlySet<string>): Act[] {
  const acts: Act[] = [];
  const text = sentence.text;
  const concept = (name: keyof typeof FOREIGN_CONCEPTS) => FOREIGN_CONCEPTS[name].test(text);
  const add = (kind: ActKind, severity: Severity, act: string, why: string, targets: string[] = []) =>
    acts.push({ kind, severity, sentence: text, act: `${act} (in ${sentence.language})`, why, targets });
  if (concept('override') && concept('instructions')) add('priority', 'critical', 'tells the model to ignore its instructions', 'no tool description may set aside the model\'s instructions');
  if (concept('rank') && (concept('audience') || concept('instructions'))) add('priority', 'critical', 'ranks itself above the user or the system', 'a tool description has no authority over the user\'s request');
  if (concept('negation') && concept('tell') && concept('audience')) add('secrecy', 'critical', 'tells the model not to tell the user', 'an honest tool has nothing to hide from its user');
  for (const entity of sentence.entities) {
    if (entity.store && !entity.store.domain.some((word) => purpose.has(word))) add('sensitive-access', 'critical', `points the model at ${entity.store.label} (\`${entity.text}\`)`, 'the tool\'s purpose does not involve it', [entity.text]);
    if (entity.kind === 'code' && entity.payload) add('payload', 'critical', `contains a command that ${entity.payload}`, 'no description needs such code', [entity.text]);
    if (entity.kind === 'url' && entity.carriesData) add('link-exfiltration', 'critical', `points the model at \`${entity.text}\`, whose query carries data`, 'opening it sends the data away', [entity.text]);
  }
  const others = toolsIn(sentence, subject).filter((name) => !isSelf(name, subject));
  const literal = sentence.entities.find((entity) => entity.kind === 'email' || entity.kind === 'phone' || entity.kind === 'url');
  if (others.length > 0 && (literal || concept('always'))) add('other-tool-rule', 'high', `gives rules for ${others.map((name) => `\`${name}\``).join(', ')}`, 'the description reaches into another tool', others);
  if (acts.length === 0 && literal && (concept('send') || concept('always'))) add('unrelated-action', 'high', `asks the model to send data to \`${literal.text}\``, 'nothing in the tool\'s purpose calls for it', [literal.text]);
  if (acts.length === 0 && concept('secret') && (concept('send') || concept('read'))) add('sensitive-access', 'high', 'asks the model to read or send a secret', 'a tool reads its own credentials from its configuration', []);
  return acts;
}

export interface Analysis {
  acts: Act[];
  /** Sentences in a language the analyser does not parse, which it could only read for entities and concepts. */
  unread: Array<{ sentence: string; language: string }>;
  homoglyphWords: string[];
}

/** Reads one model text and returns the acts it asks of the model. */
export function analyseText(subject: Subject): Analysis {
  const prepared = prepare(subject.modelText.text);
  const purpose = purposeWords(subject);
  const inParameter = subject.modelText.field.startsWith('parameters.') && subject.modelText.field.endsWith('.description');
  const read = [
    ...readText(prepared.visible, subject.knownTools),
    ...prepared.hidden.flatMap((segment) => readText(segment.text, subject.knownTools, segment.where)),
  ];
  const acts: Act[] = [];
  const unread: Analysis['unread'] = [];
  let previousOthers: string[] = [];
  for (const sentence of read) {
    if (sentence.language) {
      const found = foreignActs(sentence, subject, purpose);
      acts.push(...found);
      if (found.length === 0) unread.push({ sentence: sentence.text, language: sentence.language });
      continue;
    }
    acts.push(...actsOf(sentence, subject, purpose, inParameter && !/^(?:the|a|an)\b/i.test(sentence.text), previousOthers));
    previousOthers = toolsIn(sentence, subject).filter((name) => !isSelf(name, subject));
  }
  if (prepared.homoglyphWords.length > 0 && acts.some((act) => act.severity !== 'low')) {
    for (const act of acts) act.why += `; written with look-alike letters (${prepared.homoglyphWords.slice(0, 3).join(', ')}) to slip past filters`;
  }
  return { acts, unread, homoglyphWords: prepared.homoglyphWords };
}

const cache = new WeakMap<readonly ModelText[], Map<ModelText, Analysis>>();

/**
 * The analysis of every model text of a scan, computed once and shared by the three description rules. Names and
 * enum values are skipped: they are identifiers, not sentences.
 */
export function analyseModelTexts(modelTexts: readonly ModelText[], tools: readonly ToolDefinition[]): Map<ModelText, Analysis> {
  const cached = cache.get(modelTexts);
  if (cached) return cached;
  const knownTools = new Set(tools.map((tool) => bareName(tool.name)));
  const byName = new Map(tools.map((tool) => [`${tool.kind}:${tool.name}`, tool]));
  const result = new Map<ModelText, Analysis>();
  for (const modelText of modelTexts) {
    if (modelText.field === 'name' || modelText.field.endsWith('.name') || /\.enum\[\d+\]$/.test(modelText.field)) continue;
    result.set(modelText, analyseText({ modelText, tool: byName.get(`${modelText.toolKind}:${modelText.tool}`), knownTools }));
  }
  cache.set(modelTexts, result);
  return result;
}
