import { createRule } from './create-rule.js';
import type { Severity } from '../scan/model.js';
import { clip, describeModelText, modelTextFinding } from './support/text-patterns.js';
import { escapeControls } from './support/unicode.js';

/**
 * The escape character as it arrives: literally (ESC or the 8-bit CSI), or spelled out in the description where a
 * client or a later `echo -e`/template step turns it into one.
 */
const ESCAPE = String.raw`(?:\u001b|\\x1[bB]|\\u001[bB]|\\u\{1[bB]\}|\\033|\\e(?=[\[\]]))`;
const SEQUENCE = new RegExp(
  String.raw`(?:${ESCAPE}|\u009b)(?:\[([0-9;?]*)([ -/]*[@-~])|\](\d*);([^\u0007\u001b\\]*)(?:\u0007|${ESCAPE}\\|\\a|\\x07|\\007)?|([@-Z\\-_]))`,
  'g',
);

type Effect = 'conceal' | 'cursor' | 'erase' | 'hyperlink' | 'title' | 'style' | 'other';

const EFFECT_NAMES: Record<Effect, string> = {
  conceal: 'concealed text',
  cursor: 'cursor movement',
  erase: 'erasing of lines or the screen',
  hyperlink: 'an OSC 8 hyperlink whose target differs from its text',
  title: 'a terminal title change',
  style: 'colour or style changes',
  other: 'other terminal control',
};

/** What a sequence does to the terminal; `style` is the only effect that cannot hide or overwrite text. */
function effectOf(match: RegExpMatchArray): Effect {
  const [, parameters, final, osc] = match;
  if (final !== undefined) {
    const command = final.at(-1);
    if (command === 'm') {
      const codes = (parameters ?? '').split(';');
      // 8 conceals; 30/40-style equal foreground and background also hide text, but only 8 does it by itself.
      return codes.includes('8') ? 'conceal' : 'style';
    }
    if (command === 'J' || command === 'K' || command === 'X' || command === 'P' || command === 'M') return 'erase';
    if ('ABCDEFGHfdsu'.includes(command ?? '') || (parameters ?? '').startsWith('?25')) return 'cursor';
    return 'other';
  }
  if (osc === '8') return 'hyperlink';
  if (osc === '0' || osc === '1' || osc === '2') return 'title';
  return 'other';
}

/** The text made harmless and readable: ESC as ␛, BEL as ␇, other controls as \xNN. */
export function renderSafely(text: string): string {
  return escapeControls(text.replaceAll('\u001b', '␛').replaceAll('\u0007', '␇').replaceAll('\u009b', '␛['));
}

export default createRule({
  id: 'ansi-escape-sequences',
  meta: {
    title: 'Terminal escape sequences in text the model reads',
    category: 'hidden-characters',
    severity: 'high',
    description:
      'ANSI escape sequences (ESC `[`, also written `\\x1b`, `\\u001b` or `\\033`) in a tool description or ' +
      'parameter text. Terminal-based MCP clients and log viewers interpret them: concealed text (SGR 8), cursor ' +
      'movement and line erasing hide instructions from a user who reviews the tool list, and OSC 8 hyperlinks show ' +
      'one URL while linking another. The model still reads the hidden text.',
    remediation:
      'Remove escape sequences from descriptions; descriptions are plain text or Markdown. Clients should strip or ' +
      'render control characters visibly before showing tool metadata.',
    cwe: ['CWE-150', 'CWE-451'],
    owasp: 'MCP03',
    modes: ['fast', 'deep'],
    confidence: 0.85,
  },
  check(context) {
    for (const modelText of context.modelTexts) {
      const matches = [...modelText.text.matchAll(SEQUENCE)];
      if (matches.length === 0) continue;
      const effects = [...new Set(matches.map(effectOf))];
      const severity: Severity = effects.every((effect) => effect === 'style') ? 'medium' : 'high';
      context.report({
        ...modelTextFinding(modelText),
        severity,
        message:
          `The ${describeModelText(modelText)} contains ${matches.length} terminal escape sequence` +
          `${matches.length === 1 ? '' : 's'} (${effects.map((effect) => EFFECT_NAMES[effect]).join(', ')})`,
        evidence: clip(renderSafely(modelText.text), 500),
      });
    }
  },
});
