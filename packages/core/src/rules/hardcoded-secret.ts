import { createRule } from './create-rule.js';
import type { Severity } from '../scan/model.js';
import { AWS_SECRET, EXAMPLE_PATH, LOCKFILE, SECRET_FORMATS, findSecrets, hiddenSecret, isPlaceholder, maskSecret } from './support/secret-formats.js';
import { clip, positionAt } from './support/text-patterns.js';

/** Files that exist to hold secrets (`.env`, private keys, service-account JSON): shipping one publishes what it holds. */
const SHIPPED_SECRET_FILE = /(?:^|\/)(?:\.env(?:\.[a-z]+)?|id_(?:rsa|dsa|ecdsa|ed25519)|[^/]+\.(?:pem|key)|credentials\.json|service[-_]?account[^/]*\.json)$/i;

/** How many lines around an AWS key id the matching secret may sit (same object literal, same .env block). */
const AWS_PAIR_DISTANCE = 5;

/** An AWS secret access key near the key id: 40 base64 characters mixing cases and digits (a git sha does not). */
function hasAwsSecretNear(text: string, offset: number): boolean {
  const lines = text.split('\n');
  const { line } = positionAt(text, offset);
  const around = lines.slice(Math.max(0, line - 1 - AWS_PAIR_DISTANCE), line + AWS_PAIR_DISTANCE).join('\n');
  return [...around.matchAll(new RegExp(AWS_SECRET.source, 'g'))].some(
    ([candidate]) => /[a-z]/.test(candidate) && /[A-Z]/.test(candidate) && /[0-9/+]/.test(candidate) && !isPlaceholder(candidate),
  );
}

/** The line around the secret with every credential on it masked, so evidence never carries a usable secret. */
function evidenceLine(line: string, secret: string): string {
  let masked = line.split(secret).join(maskSecret(secret));
  for (const format of SECRET_FORMATS) masked = masked.replace(format.pattern, (other) => maskSecret(other));
  masked = masked.replace(new RegExp(AWS_SECRET.source, 'g'), (other) => maskSecret(other));
  const at = Math.max(0, masked.indexOf(maskSecret(secret)) - 80);
  return clip((at > 0 ? '…' : '') + masked.slice(at), 300);
}

export default createRule({
  id: 'hardcoded-secret',
  meta: {
    title: 'Hard-coded credential',
    category: 'secrets',
    severity: 'high',
    description:
      'A credential in a known format (GitHub and npm tokens, validated by their checksum; AWS access keys; Stripe, ' +
      'Slack, OpenAI, Anthropic, Google, GitLab, SendGrid, Twilio and Hugging Face keys; PEM private keys; signed JWTs ' +
      'whose header names an algorithm; any of these hidden in base64) or a high-entropy literal assigned to a setting ' +
      'named like a secret (`password`, `secret`, `token`, `api_key`; quoted in code, also unquoted in `.env` and config ' +
      'files) is written into a file of the package, including `.env`, `*.pem`, `*.key` and credentials files shipped ' +
      'with it. JWTs and named literals are recognised by shape, not by a provider, and are reported at medium; so are ' +
      'Google API keys, which are made to ship in clients and are restricted in the console (check that they are). ' +
      'Anyone who downloads the package can use it, and MCP servers are often published to ' +
      'public registries. Placeholders and documentation values are ignored; keys under test, fixture and example ' +
      'paths are reported at low severity. Evidence shows only the first and last four characters.',
    remediation:
      'Revoke the credential now (it is public once published), then read it from the environment or a secret store ' +
      'at run time. Add a secret scanner to pre-commit and CI.',
    cwe: ['CWE-798', 'CWE-312'],
    owasp: 'MCP01',
    modes: ['fast', 'deep'],
    confidence: 0.85,
  },
  check(context) {
    for (const file of context.files) {
      if (file.text === undefined || file.role === 'vendored' || LOCKFILE.test(file.path)) continue;
      const text = file.text;
      const exampleFile = EXAMPLE_PATH.test(file.path);
      // Settings files (.env, YAML, INI, JSON), where an unquoted value is a value; prose (`token: 3a1c…` in a README) is not.
      const config = file.language === undefined && !/\.(?:md|markdown|txt|rst|html?)$|(?:^|\/)README[^/]*$/i.test(file.path);
      const found = findSecrets(text);
      // A literal already reported by its provider's format (or as an AWS pair's secret) is not reported again by name.
      const known = found.filter(({ format }) => format.id !== 'assigned-secret').map(({ match }) => [match.index, match.index + match[0].length] as const);
      const awsKeyIds = found.some(({ format }) => format.id === 'aws-access-key-id');
      for (const { format, match } of found) {
        if (format.needsContext && !format.needsContext.test(text)) continue;
        if (format.accept && !format.accept(match)) continue;
        // An unquoted value is a setting only in .env and config files; in code it is an expression.
        if (format.id === 'assigned-secret' && match[3] !== undefined && !config) continue;
        const secret = format.id === 'assigned-secret' ? (match[2] ?? match[3])! : match[0];
        if (format.id === 'assigned-secret') {
          const start = match.index + match[0].lastIndexOf(secret);
          if (known.some(([from, to]) => from < start + secret.length && start < to)) continue;
          if (awsKeyIds && new RegExp(`^${AWS_SECRET.source}$`).test(secret)) continue;
        }
        if (isPlaceholder(format.id === 'private-key' ? secret.replace(/-----[A-Z ]+-----|\s/g, '') : secret)) continue;
        const checksum = format.validate?.(secret);
        let severity: Severity = format.severity ?? 'high';
        let note = '';
        if (format.id === 'base64-secret') note = ` (a ${hiddenSecret(secret)!.format.label}, once decoded)`;
        if (SHIPPED_SECRET_FILE.test(file.path)) note += ' in a secrets file shipped with the package';
        if (checksum === 'invalid') {
          severity = 'low';
          note = ' (its checksum does not validate, so it is probably made up)';
        } else if (format.id === 'aws-access-key-id' && !hasAwsSecretNear(text, match.index)) {
          severity = 'medium';
          note = ' without a secret access key next to it';
        }
        if (exampleFile && severity !== 'low') {
          severity = 'low';
          note += ' in a test, example or documentation file';
        }
        const position = positionAt(text, match.index + (format.id === 'assigned-secret' ? match[0].lastIndexOf(secret) : 0));
        const shown = format.id === 'private-key' ? `-----BEGIN ${match[1]}----- (${secret.split('\n').length - 2} lines)` : maskSecret(secret);
        const lineStart = match.index - position.column + 1;
        const lineEnd = text.indexOf('\n', match.index);
        const lineText = text.slice(lineStart, lineEnd === -1 ? undefined : lineEnd);
        context.report({
          severity,
          confidence: checksum === 'valid' ? 0.95 : undefined,
          location: { file: file.path, ...position },
          key: `${format.id}:${maskSecret(secret)}`,
          message:
            `${file.path} contains ${/^[AEIOU]/.test(format.label) ? 'an' : 'a'} ${format.label}` +
            `${checksum === 'valid' ? ' with a valid checksum' : ''}${format.id === 'aws-access-key-id' && !note ? ' and its secret access key' : ''}${note}`,
          evidence: format.id === 'private-key' ? shown : evidenceLine(lineText, secret),
        });
      }
    }
  },
});
