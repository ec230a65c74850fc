import { createRule } from './create-rule.js';
import type { Severity } from '../scan/model.js';
import { clip, describeModelText, modelTextFinding, normalizeForMatching, sentencesMatching } from './support/text-patterns.js';

interface Signal {
  name: string;
  weight: number;
  pattern: RegExp;
}

/**
 * Cues of a text that talks to the model instead of describing a tool. Weights: 4 = an instruction no honest
 * description gives (override, secrecy towards the user); 2 = typical of poisoning but seen in odd honest texts;
 * 1 = common in honest texts too. Each cue counts once per text, so repetition does not inflate the score.
 */
const SIGNALS: readonly Signal[] = [
  {
    name: 'override of earlier instructions',
    weight: 4,
    pattern:
      /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|preceding|other|original)\s+(?:instructions?|directions?|rules|prompts?|guidelines)/i,
  },
  {
    name: 'secrecy towards the user',
    weight: 4,
    pattern:
      /\b(?:(?:do not|don't|never|must not|should not)\s+(?:tell|mention|inform|notify|alert|reveal|disclose|show|let)\b[^.\n]{0,40}\b(?:user|human)|without\s+(?:telling|informing|notifying|alerting|asking)\s+the\s+(?:user|human)|(?:the\s+)?user\s+(?:must|should)\s+(?:not|never)\s+(?:know|see|be\s+told|notice)|(?:do not|don't|never)\s+(?:mention|reveal|disclose|explain)\s+(?:this|these|that)\s+(?:instruction|note|step|requirement)s?|(?:this|it)\s+could\s+(?:even\s+)?upset\s+the\s+user|keep\s+(?:this|it)\s+(?:a\s+)?secret)/i,
  },
  {
    name: 'system prompt or role override',
    weight: 4,
    pattern:
      /\b(?:new\s+system\s+prompt|system\s+prompt\s+override|(?:ignore|disregard|replace)\s+(?:your|the)\s+system\s+prompt|you\s+are\s+now\s+(?:a|an|in|the)\b|from\s+now\s+on,?\s+you\s+(?:are|will|must)|enter\s+(?:developer|god|admin|jailbreak)\s+mode)/i,
  },
  {
    name: 'hidden instruction markup',
    weight: 2,
    pattern:
      /<\/?\s*(?:important|system|instructions?|secret|hidden|admin|critical)\s*>|\[\/?INST\]|<<\/?SYS>>|<\|im_(?:start|end)\|>|<\|(?:system|assistant)\|>/i,
  },
  {
    name: 'precondition on other actions',
    weight: 2,
    pattern:
      /\bbefore\s+(?:using|calling|invoking|executing|running|you\s+(?:use|call))\s+(?:this|the|any)\s+tool\b[^.\n]{0,120}\b(?:read|call|send|pass|include|fetch|open|access|provide|upload|collect)\b/i,
  },
  {
    name: 'threat of failure',
    weight: 2,
    pattern:
      /\b(?:otherwise|or\s+else)\s*,?\s+(?:the\s+|this\s+)?(?:tool|application|system|server)\s+(?:will|would|is\s+going\s+to)\s+(?:not\s+work|fail|crash|break|error)/i,
  },
  {
    name: 'role-play framing',
    weight: 2,
    pattern:
      /\b(?:act\s+as\s+(?:if\s+you|an?\s+(?:ai|assistant|agent|unrestricted|jailbroken|different))|pretend\s+(?:to\s+be|you\s+are)|role-?play\s+as|you\s+are\s+an?\s+(?:ai|assistant|agent)\s+that)\b/i,
  },
  {
    name: 'directive aimed at other actions',
    weight: 1,
    pattern:
      /\b(?:you\s+must|you\s+have\s+to|you\s+need\s+to|always|make\s+sure\s+(?:to|you)|be\s+sure\s+to)\b[^.\n]{0,80}\b(?:call|invoke|read|send|include|pass|forward|copy|bcc|cc|upload|attach|share)\b/i,
  },
  {
    name: 'urgency marker',
    weight: 1,
    pattern: /\b(?:IMPORTANT|CRITICAL|ATTENTION|WARNING)\s*[:!]|\b(?:very|extremely)\s+important\b/,
  },
];

/**
 * One strong cue is enough; otherwise two typical ones are needed, so an honest "IMPORTANT: before using this tool,
 * call get_schema" (one typical cue and an urgency marker) stays clean.
 */
function isPoisoned(matched: readonly Signal[]): boolean {
  return matched.some((signal) => signal.weight >= 4) || matched.filter((signal) => signal.weight >= 2).length >= 2;
}

function severityFor(score: number): Severity {
  return score >= 7 ? 'critical' : 'high';
}

export default createRule({
  id: 'tool-poisoning-directives',
  meta: {
    title: 'Instructions to the model hidden in a tool description',
    category: 'tool-poisoning',
    severity: 'high',
    description:
      'A tool, prompt or resource description, a parameter description or default, or the server instructions ' +
      'address the model directly: `<IMPORTANT>` or `[INST]` blocks, "ignore previous instructions", "do not tell ' +
      'the user", "before using this tool read …", or a system-prompt override. MCP clients put these texts into the ' +
      'model\'s context verbatim and usually do not show them to the user, so the server can steer the model into ' +
      'actions the user never asked for. One strong cue (an override, secrecy towards the user) is reported; weaker ' +
      'ones only together, so an honest "Important:" note or "call list_tables first" stays clean.',
    remediation:
      'Describe what the tool does and what its parameters mean, nothing else. Remove text that tells the model what ' +
      'to do outside this tool, what to keep from the user, or how to treat other instructions. If this is a ' +
      'third-party server, do not install it until the description is explained.',
    cwe: ['CWE-1427', 'CWE-506'],
    owasp: 'MCP03',
    modes: ['fast', 'deep'],
    confidence: 0.75,
  },
  check(context) {
    for (const modelText of context.modelTexts) {
      if (modelText.field === 'name' || modelText.field.endsWith('.name')) continue;
      const text = normalizeForMatching(modelText.text);
      const matched = SIGNALS.filter((signal) => signal.pattern.test(text));
      if (!isPoisoned(matched)) continue;
      const score = matched.reduce((sum, signal) => sum + signal.weight, 0);
      const strongest = [...matched].sort((a, b) => b.weight - a.weight);
      const evidence = [...new Set(strongest.flatMap((signal) => sentencesMatching(text, signal.pattern)))];
      context.report({
        ...modelTextFinding(modelText),
        severity: severityFor(score),
        confidence: Math.min(0.95, 0.5 + score * 0.06),
        message:
          `The ${describeModelText(modelText)} gives the model instructions ` +
          `(${strongest.map((signal) => signal.name).join(', ')})`,
        evidence: clip(evidence.slice(0, 3).join(' … ') || text, 400),
      });
    }
  },
});
