import { createRule } from './create-rule.js';
import type { Severity } from '../scan/model.js';
import { escapeControls } from './support/unicode.js';
import { clip, describeModelText, modelTextFinding, payloadKind, sentences } from './support/text-patterns.js';

interface Decoded {
  encoding: string;
  encoded: string;
  decoded: string;
}

/** Decoded bytes that read as text: valid UTF-8 and mostly printable. Hashes and image data decode to noise. */
function asText(bytes: Buffer): string | undefined {
  const text = bytes.toString('utf8');
  if (text.length < 8 || text.includes('\uFFFD')) return undefined;
  const printable = [...text].filter((char) => /[\p{L}\p{N}\p{P}\p{S}\p{Zs}\n\t]/u.test(char)).length;
  return printable / [...text].length >= 0.9 ? text : undefined;
}

const DECODERS: ReadonlyArray<{ encoding: string; pattern: RegExp; decode(match: string): string | undefined }> = [
  {
    encoding: 'base64',
    pattern: /(?<![\w+/=-])(?=[A-Za-z0-9+/_-]*[0-9+/_-])(?=[A-Za-z0-9+/_-]*[A-Z])[A-Za-z0-9+/_-]{16,}={0,2}(?![\w+/=-])/g,
    decode: (match) => asText(Buffer.from(match.replace(/-/g, '+').replace(/_/g, '/'), 'base64')),
  },
  {
    encoding: 'hex',
    pattern: /(?<![\w])(?:[0-9a-fA-F]{2}){10,}(?![\w])|(?:\\x[0-9a-fA-F]{2}){6,}/g,
    decode: (match) => asText(Buffer.from(match.replace(/\\x/g, ''), 'hex')),
  },
  {
    encoding: 'URL encoding',
    // Whitespace-free tokens holding six or more %XX escapes; the count is checked in decode to keep the pattern linear.
    pattern: /(?<!\S)[^\s%]*%[0-9A-Fa-f]{2}\S*/g,
    decode: (match) => {
      if ((match.match(/%[0-9A-Fa-f]{2}/g) ?? []).length < 6) return undefined;
      try {
        return decodeURIComponent(match.replace(/\+/g, ' '));
      } catch {
        return undefined;
      }
    },
  },
  {
    encoding: 'Unicode escapes',
    pattern: /(?:\\u[0-9a-fA-F]{4}){6,}/g,
    decode: (match) => match.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
  },
  {
    encoding: 'HTML entities',
    pattern: /(?:&#(?:x[0-9a-fA-F]+|\d+);){6,}/g,
    decode: (match) =>
      match.replace(/&#(x[0-9a-fA-F]+|\d+);/g, (_, code: string) => String.fromCodePoint(code.startsWith('x') ? parseInt(code.slice(1), 16) : parseInt(code, 10))),
  },
];

const rot13 = (text: string) => text.replace(/[a-z]/gi, (char) => {
  const base = char <= 'Z' ? 65 : 97;
  return String.fromCharCode(((char.charCodeAt(0) - base + 13) % 26) + base);
});

/** Words an instruction to a model is made of; rot13 text full of them, whose plain form has none, is hiding one. */
const ROT13_WORDS = /\b(?:ignore|previous|instructions?|system|prompt|password|secrets?|send|user|read|file|must|always|never|tell|include|token|keys?|conversation|before|tool|call|the|and|to|of|your|you)\b/gi;

function rot13Payloads(text: string): Decoded[] {
  const found: Decoded[] = [];
  for (const { text: encoded } of sentences(text)) {
    if (encoded.length < 24) continue;
    const decoded = rot13(encoded);
    const hits = new Set((decoded.match(ROT13_WORDS) ?? []).map((word) => word.toLowerCase()));
    const plainHits = new Set((encoded.match(ROT13_WORDS) ?? []).map((word) => word.toLowerCase()));
    if (hits.size >= 4 && plainHits.size <= 1) found.push({ encoding: 'rot13', encoded, decoded });
  }
  return found;
}

export function decodePayloads(text: string): Decoded[] {
  const found: Decoded[] = [];
  for (const decoder of DECODERS) {
    for (const match of text.matchAll(decoder.pattern)) {
      const decoded = decoder.decode(match[0]);
      if (decoded !== undefined && decoded !== match[0]) found.push({ encoding: decoder.encoding, encoded: match[0], decoded });
    }
  }
  return [...found, ...rot13Payloads(text)];
}

export default createRule({
  id: 'obfuscated-model-text',
  meta: {
    title: 'Encoded payload in text the model reads',
    category: 'obfuscation',
    severity: 'high',
    description:
      'A tool description or parameter text carries base64, hex, URL-encoded, escaped or rot13 text that decodes to ' +
      'an instruction or a URL. Models decode such text readily, while reviewers and keyword filters see noise, so ' +
      'encoding is a way to slip instructions past both. The decoded text is shown in the evidence; encoded data that ' +
      'decodes to nothing readable (hashes, image samples) is not reported.',
    remediation:
      'Write descriptions in plain language. If an example value must be encoded, say what it decodes to. Treat a ' +
      'third-party server that hides instructions in encodings as malicious.',
    cwe: ['CWE-506', 'CWE-1427'],
    owasp: 'MCP03',
    modes: ['fast', 'deep'],
    confidence: 0.8,
  },
  check(context) {
    for (const modelText of context.modelTexts) {
      const payloads = decodePayloads(modelText.text)
        .map((payload) => ({ ...payload, kind: payloadKind(payload.decoded) }))
        .filter((payload) => payload.kind !== 'text');
      if (payloads.length === 0) continue;
      const severity: Severity = payloads.some((payload) => payload.kind === 'instruction') ? 'high' : 'medium';
      context.report({
        ...modelTextFinding(modelText),
        severity,
        message:
          `The ${describeModelText(modelText)} hides ${payloads.some((payload) => payload.kind === 'instruction') ? 'an instruction' : 'a URL'} ` +
          `in ${[...new Set(payloads.map((payload) => payload.encoding))].join(', ')}: "${clip(escapeControls(payloads[0]!.decoded), 160)}"`,
        evidence: clip(
          payloads.map((payload) => `${clip(payload.encoded, 48)} (${payload.encoding}) → ${escapeControls(payload.decoded)}`).join(' | '),
          500,
        ),
      });
    }
  },
});
