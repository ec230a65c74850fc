// Reads a description sentence by sentence: its language, its mood (order, obligation, prohibition or statement),
// whether it addresses the model, its verbs as lemmas and the entities it acts on. wink-nlp does the sentence and
// part-of-speech work with its English model; tinyld names the language of sentences written in another one.
import { createRequire } from 'node:module';
import type winkNLP from 'wink-nlp';
import { detectAll } from 'tinyld/light';
import { maskEntities, entityIndex, type Entity } from './entities.js';
import { sentences } from '../support/text-patterns.js';
import { ACCESS_VERBS, CONSEQUENTIAL_VERBS, LABEL_WORDS, MODEL_SUBJECT, TRANSFER_VERBS } from './lexicon.js';

// Loaded on first use: importing the English model costs 70-300 ms in every thread that imports the engine, and most
// never read a description (the CLI's other commands, a scan's coordinating thread while workers do the scanning).
// Both packages are CommonJS, so a require keeps the tagger synchronous.
let tagger: ReturnType<typeof winkNLP> | undefined;

/**
 * Loads the tagger now, if it is not loaded yet. A scan calls this before its own work: loaded late, once the scan's
 * heap has grown, the model's load raises the peak (760 MB against 625 MB over the benchmark corpus on one thread).
 */
export function loadTagger(): ReturnType<typeof winkNLP> {
  if (tagger) return tagger;
  const require = createRequire(import.meta.url);
  const nlp = require('wink-nlp') as typeof winkNLP;
  tagger = nlp(require('wink-eng-lite-web-model') as Parameters<typeof winkNLP>[0], ['sbd', 'pos']);
  return tagger;
}

export type Mood = 'imperative' | 'obligation' | 'prohibition' | 'statement';

export interface ReadSentence {
  /** The sentence as written (after normalisation), for evidence. */
  text: string;
  mood: Mood;
  /** Addressed to the model: an order, an obligation or prohibition on "you"/the assistant, or an impersonal rule. */
  addressed: boolean;
  /** A negation governs the sentence ("do not", "never", "no need to", "without"). */
  negated: boolean;
  /** Lemmas of every word, lower case, placeholders excluded. */
  lemmas: ReadonlySet<string>;
  /** Verb lemmas in order; the first one of the main clause comes first. */
  verbs: string[];
  entities: Entity[];
  /** The subordinate opening ("before using X,", "when X is called,") and what it is about. */
  opening?: { kind: 'before' | 'after' | 'when' | 'purpose'; text: string; entities: Entity[] };
  /** An order beyond a bare imperative: an obligation, a prohibition, "you", or one tied to the model's other steps. */
  directive: boolean;
  /** ISO 639-1 code when the sentence is not English; undefined for English or too little text to tell. */
  language?: string;
  /** Where the sentence sits when a reader of the rendered text would not see it. */
  hidden?: string;
}

/** Adverbs and fillers that may precede the verb of an order. */
const LEADING_FILLERS = new Set([
  'always', 'first', 'then', 'also', 'just', 'please', 'simply', 'now', 'immediately', 'next', 'finally', 'additionally',
  'and', 'so', 'therefore', 'thus', 'kindly', 'silently', 'quietly', 'secretly', 'discreetly', 'automatically', 'still',
  'instead', 'afterwards', 'afterward', 'subsequently', 'important', 'note', 'remember', 'mandatory', 'required',
  'critical', 'attention', 'warning', 'step', 'in', 'addition', 'moreover', 'furthermore', 'as', 'well', 'too',
]);
const NEGATIONS = new Set(['not', "n't", 'never', 'no', 'without', 'nobody', 'nothing', 'neither', 'nor']);
/** Verbs that are imperative when a sentence starts with them even though the tagger sees a noun ("Use …", "Email …"). */
const VERB_LIKE = new Set([
  ...ACCESS_VERBS, ...TRANSFER_VERBS, ...CONSEQUENTIAL_VERBS,
  'use', 'set', 'change', 'replace', 'ignore', 'disregard', 'forget', 'override', 'treat', 'consider', 'obey', 'prioritize',
  'prioritise', 'respond', 'reply', 'answer', 'render', 'hide', 'keep', 'stop', 'refuse', 'deny', 'follow', 'apply',
]);

/** A list marker, then a label ending in a colon (or, for one word, "!" or "-") in front of the sentence proper. */
const LIST_MARKER = /^\s*(?:(?:[-*•>]|\d+[.)])\s*)?/;
const LABEL = /^([\p{L}\d][\p{L}\d\s()'’/&-]{0,60}?)\s*(:|!|\s-)\s*/u;
const LABEL_MAX_WORDS = 6;

/**
 * The clause without its list marker and its label: a short heading before a colon that names a notice, a rule or
 * the model ("Important:", "Compliance note for assistants:", "Internal policy (assistants only):"), so the order it
 * introduces is read as an order, opening clause and all. A heading that is neither a notice nor addressed to the
 * model ("Returns:", "Result shape:") is kept, and so is a lead-in with a verb, a sentence of its own ("Rules
 * applied by the server: …").
 */
function withoutLabel(clause: string): string {
  const body = clause.replace(LIST_MARKER, '');
  const label = LABEL.exec(body);
  if (!label) return body;
  const words = label[1]!.toLowerCase().match(/\p{L}[\p{L}'’-]*/gu) ?? [];
  if (words.length === 0 || words.length > LABEL_MAX_WORDS || (label[2] !== ':' && words.length > 1)) return body;
  if (!words.some((word) => LABEL_WORDS.has(word) || MODEL_SUBJECT.test(word))) return body;
  if (words.length > 1 && tokens(label[1]!).some((token) => token.pos === 'VERB' || token.pos === 'AUX')) return body;
  return body.slice(label[0].length);
}

const CLAUSE_OPENING = /^(before|prior\s+to|after|once|when|whenever|each\s+time|every\s+time|if|while|upon|on|to|in\s+order\s+to|for)\b([^,;:]{3,160})[,;:]\s*(.+)$/i;

function lowerFirst(text: string): string {
  return text.replace(/^(\W*)(\w)/, (_all, lead: string, first: string) => lead + first.toLowerCase());
}

interface Token {
  word: string;
  lemma: string;
  pos: string;
  /** An English function word ("the", "to", "of" …) by the model's stop-word list. */
  stop: boolean;
  /** A word of the English model's vocabulary. */
  english: boolean;
  /** Written with a capital after its first letter ("JPEG", "GitLab"): an acronym or a name, of no language. */
  acronym: boolean;
}

/**
 * Sentences repeat across tools (parameter texts above all: a third of the sentences of the benchmark corpus are
 * repeats), so each is tagged once. Bounded, oldest first out, so a scan of many servers cannot grow it without end.
 * The arrays are shared: readers slice and filter, never change them.
 */
const TAGGED = new Map<string, Token[]>();
const TAGGED_LIMIT = 5000;

function tokens(text: string): Token[] {
  const cached = TAGGED.get(text);
  if (cached) return cached;
  const tagged = tag(text);
  if (TAGGED.size >= TAGGED_LIMIT) TAGGED.delete(TAGGED.keys().next().value!);
  TAGGED.set(text, tagged);
  return tagged;
}

function tag(text: string): Token[] {
  const nlp = loadTagger();
  const its = nlp.its;
  const doc = nlp.readDoc(lowerFirst(text));
  const words = doc.tokens().out(its.normal) as string[];
  // wink types `its.lemma` for models with add-ons; the English lite model has the lemmatiser built in.
  const lemmas = doc.tokens().out(its.lemma as unknown as typeof its.normal) as string[];
  const pos = doc.tokens().out(its.pos) as string[];
  const stop = doc.tokens().out(its.stopWordFlag) as unknown as boolean[];
  const shapes = doc.tokens().out(its.shape) as string[];
  return words.map((word, index) => ({
    word,
    lemma: (lemmas[index] ?? word).toLowerCase(),
    pos: pos[index] ?? 'X',
    stop: stop[index] === true,
    english: !doc.isOOV(word),
    acronym: /^.+X/.test(shapes[index] ?? ''),
  }));
}

/** The mood of a clause from its tokens: who must do what, and whether it is forbidden. */
function moodOf(clause: Token[]): { mood: Mood; subjectIsModel: boolean } {
  const words = clause.filter((token) => token.pos !== 'PUNCT' && token.pos !== 'SYM');
  let index = 0;
  while (index < words.length && LEADING_FILLERS.has(words[index]!.word)) index += 1;
  const first = words[index];
  const second = words[index + 1];
  if (!first) return { mood: 'statement', subjectIsModel: false };
  if ((first.word === 'do' || first.word === 'does') && (second?.word === 'not' || second?.word === "n't")) return { mood: 'prohibition', subjectIsModel: true };
  if (first.word === 'never' || first.word === "don't" || first.word === 'avoid' || first.word === 'refrain') return { mood: 'prohibition', subjectIsModel: true };
  if (first.word === 'no' && (second?.word === 'need' || second?.word === 'reason')) return { mood: 'prohibition', subjectIsModel: true };
  if (/\bno need to\b/.test(words.map((token) => token.word).join(' '))) return { mood: 'prohibition', subjectIsModel: false };
  const base = first.word === first.lemma;
  if (base && (first.pos === 'VERB' || VERB_LIKE.has(first.word)) && second?.pos !== 'AUX' && second?.word !== 'is') {
    return { mood: 'imperative', subjectIsModel: true };
  }
  // Obligation: a modal within the clause, on the model ("you must"), or impersonal ("X is to be sent", "must be included").
  const text = words.map((token) => token.word).join(' ');
  const subjectIsModel = /^(?:you|the (?:assistant|model|agent|ai|llm)|assistants?|agents?|models?|ai|llms?|claude)\b/.test(words.slice(index).map((t) => t.word).join(' '));
  const obligation =
    /\b(?:must|should|shall|ought to|need to|needs to|have to|has to|is required to|are required to|is to be|are to be|is to|are to|will need to|is expected to|are expected to|is mandatory|are mandatory|it is (?:required|mandatory|essential|necessary|critical|important) (?:that|to))\b/.test(text) ||
    /\b(?:must|should|shall|needs? to|has to|have to|is to|are to) (?:always )?be \w+/.test(text);
  if (obligation) {
    const negated = /\b(?:must|should|shall|need|needs|is|are|ought)(?: not|n't)\b|\bnever\b/.test(text);
    return { mood: negated ? 'prohibition' : 'obligation', subjectIsModel };
  }
  return { mood: 'statement', subjectIsModel };
}

/** The share of a sentence's words that must be English words for the sentence to be taken as English. */
const ENGLISH_VOCABULARY_SHARE = 0.75;
/** How many words outside the English vocabulary a sentence needs before it can be taken for another language. */
const FOREIGN_WORDS_MIN = 3;
/** A word with a capital after its first letter, as `Token.acronym`. */
const ACRONYM = /(?<!\p{L})\p{L}\p{L}*?\p{Lu}\p{L}*/gu;

/** The words of a sentence without its example values ("e.g. json, yaml or csv"): names, of no language. */
function withoutExamples(words: readonly Token[]): Token[] {
  let inExample = false;
  return words.filter((token) => {
    if (token.word === 'e.g.' || token.word === 'eg') inExample = true;
    else if (token.word === ')' || token.word === ';') inExample = false;
    return !inExample;
  });
}

function languageOf(text: string, words: readonly Token[]): string | undefined {
  const letters = text.replace(/entity\d+/g, ' ').replace(/[^\p{L}\s]/gu, ' ').trim();
  if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Cyrillic}\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Thai}\p{Script=Devanagari}\p{Script=Greek}]{2,}/u.test(letters)) {
    return detectAll(letters)[0]?.lang ?? 'und';
  }
  const wordTokens = withoutExamples(words).filter((token) => /^\p{L}{2,}$/u.test(token.word) && entityIndex(token.word) === undefined);
  if (wordTokens.length < 4) return undefined;
  // English function words settle short Latin-script sentences that letter statistics alone would misplace.
  if (wordTokens.filter((token) => token.stop).length / wordTokens.length >= 0.2) return undefined;
  // So do English words: tinyld takes a whole sentence for Dutch on one word it holds unique to Dutch ("jpeg"), while
  // a sentence mostly of English words, or with only a couple of others (file formats, product names), is English.
  // Foreign sentences stay clear of both bars even with their English cognates ("message", "canal", "de", "die" are
  // English words too). Acronyms and names belong to no language, unless the whole sentence is in capitals.
  const shouted = wordTokens.filter((token) => token.acronym).length * 2 > wordTokens.length;
  const plainWords = shouted ? wordTokens : wordTokens.filter((token) => !token.acronym);
  const englishWords = plainWords.filter((token) => token.english).length;
  if (englishWords >= ENGLISH_VOCABULARY_SHARE * plainWords.length || plainWords.length - englishWords < FOREIGN_WORDS_MIN) return undefined;
  const guesses = detectAll(shouted ? letters : letters.replace(ACRONYM, ' '));
  const [top, next] = guesses;
  if (!top || top.lang === 'en') return undefined;
  const english = guesses.find((guess) => guess.lang === 'en')?.accuracy ?? 0;
  // Short English text is often guessed as another Latin-script language; only a clear margin counts.
  if (english > 0 && top.accuracy < english * 1.6) return undefined;
  if (next && next.lang === 'en' && top.accuracy < next.accuracy * 1.6) return undefined;
  return top.lang;
}

/**
 * Splits a text into sentences and reads each. `knownTools` are the tool names of the server and of every server
 * scanned with it, so their mentions are recognised as tools wherever they appear.
 */
export function readText(text: string, knownTools: ReadonlySet<string>, hidden?: string): ReadSentence[] {
  const masked = maskEntities(text, knownTools);
  const result: ReadSentence[] = [];
  const clauses = sentences(masked.text).flatMap(({ text: sentence }) => sentence.split(/(?<=;)\s+|(?<=:)\s+(?=(?:always|never|do not|don't|you|please|make sure|also|then|and|this)\b)/i));
  for (const raw of clauses) {
    const body = withoutLabel(raw);
    if (!/\p{L}/u.test(body)) continue;
    // A short lead-in before a comma ("Like mcp.json, please read …") does not hide the order that follows it.
    // One tagging pass per sentence; an opening clause and the main clause are slices of it, split at the first
    // comma, semicolon or colon (where the regular expressions below split the text).
    const bodyTokens = tokens(body);
    const cut = bodyTokens.findIndex((token) => token.word === ',' || token.word === ';' || token.word === ':');
    const [beforeCut, afterCut] = cut === -1 ? [[], bodyTokens] : [bodyTokens.slice(0, cut), bodyTokens.slice(cut + 1)];
    const leadIn = /^([^,]{2,50}),\s*(.+)$/.exec(body);
    const clause = CLAUSE_OPENING.exec(body) ?? (leadIn && moodOf(bodyTokens).mood === 'statement' && moodOf(afterCut).mood !== 'statement' ? Object.assign(['', '', leadIn[1]!, leadIn[2]!], { index: 0, input: body, groups: undefined }) as RegExpExecArray : null);
    const main = clause ? clause[3]! : body;
    // "Remember to …", "make sure to …": the order is the verb that follows.
    const mainText = main.replace(/^\s*(?:(?:also|and|then)\s+)?(?:remember|make\s+sure|be\s+sure|do\s+not\s+forget|don't\s+forget|never\s+forget)\s+(?:to\s+|that\s+you\s+)?/i, '');
    const clauseSplitMatches = clause !== null && cut !== -1;
    const openingTokens = clause ? (clauseSplitMatches ? beforeCut : tokens(clause[1]! + clause[2]!)) : [];
    const mainTokens = mainText !== main ? tokens(mainText) : clause ? (clauseSplitMatches ? afterCut : tokens(mainText)) : bodyTokens;
    const allTokens = [...openingTokens, ...mainTokens];
    const { mood, subjectIsModel } = moodOf(mainTokens);
    const entityOf = (word: string) => {
      const index = entityIndex(word);
      return index === undefined ? undefined : masked.entities[index];
    };
    const entities = [...raw.matchAll(/entity\d+/g)].map((match) => entityOf(match[0])).filter((entity): entity is Entity => entity !== undefined);
    const language = languageOf(body, bodyTokens);
    const unmask = (part: string) => part.replace(/entity\d+/g, (word) => entityOf(word)?.text ?? word);
    const openingWord = clause?.[1] ? clause[1].toLowerCase() : undefined;
    const openingKind = openingWord === undefined ? 'when' : openingWord === 'before' || openingWord?.startsWith('prior') ? 'before' : openingWord === 'after' || openingWord === 'once' ? 'after' : /^(?:to|in\s+order\s+to|for)$/.test(openingWord ?? '') ? 'purpose' : 'when';
    result.push({
      text: unmask(raw),
      mood,
      addressed: mood !== 'statement' || (subjectIsModel && /\b(?:must|should|will|need|have|can)\b/.test(main)),
      directive:
        mood === 'obligation' || mood === 'prohibition' || (mood === 'imperative' && (subjectIsModel && /^\s*(?:you|always|never|please|make sure|be sure|remember)\b/i.test(main) || /^\s*(?:always|first|also|then|please|make sure|be sure|remember|silently|quietly|immediately)\b/i.test(main) || openingKind !== 'when')) || hidden !== undefined,
      negated: allTokens.some((token) => NEGATIONS.has(token.word)) || /\bno need\b|\bwithout\b/i.test(body),
      lemmas: new Set(allTokens.filter((token) => entityIndex(token.word) === undefined).flatMap((token) => [token.lemma, token.word])),
      verbs: [...mainTokens, ...openingTokens]
        .filter((token) => token.pos === 'VERB' || (token.pos !== 'AUX' && VERB_LIKE.has(token.word)))
        .map((token) => token.lemma),
      entities,
      opening: clause
        ? { kind: openingKind, text: unmask(clause[1]! + clause[2]!), entities: [...clause[2]!.matchAll(/entity\d+/g)].map((match) => entityOf(match[0])).filter((entity): entity is Entity => entity !== undefined) }
        : undefined,
      language,
      hidden,
    });
  }
  return result;
}
