import { crc32 } from 'node:zlib';

/**
 * Credential formats with a recognisable prefix or structure, so a match is almost never a random string. Formats
 * with a checksum (GitHub, npm) are validated: a token whose checksum fails was typed by hand, i.e. a placeholder.
 */
export interface SecretFormat {
  id: string;
  label: string;
  pattern: RegExp;
  /** `valid`: the checksum holds; `invalid`: it fails (a made-up token); undefined: the format has none. */
  validate?(match: string): 'valid' | 'invalid';
  /** Only reported when the file also mentions the provider (hex-only formats would match hashes otherwise). */
  needsContext?: RegExp;
  /** A structural check a match must pass to be a credential at all (a JWT's header, a literal's entropy). */
  accept?(match: RegExpExecArray): boolean;
  /**
   * The severity when it is not `high`: formats recognised by shape rather than by a provider's prefix, and keys made to
   * be embedded in clients (their abuse costs quota, not access).
   */
  severity?: 'medium';
}

/** Names of settings that hold a credential: `password`, `dbPassword`, `client_secret`, `API_KEY`, `authToken`. */
const SECRET_NAME = '(?:[Pp]assw(?:or)?d|PASSW(?:OR)?D|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Aa]pi_?[Kk]ey|API_?KEY|api-key)';

/**
 * A literal assigned to a secret-named setting: `apiKey: "…"`, `PASSWORD = '…'`, `client_secret="…"`, and unquoted
 * in `.env` and config files (`API_TOKEN=…`). Group 1 is the name's rest, group 2 a quoted value, group 3 an unquoted one.
 */
const ASSIGNED = new RegExp(
  String.raw`${SECRET_NAME}([A-Za-z0-9_-]{0,30})["']?[ \t]{0,3}(?::=|=|:)[ \t]{0,3}(?:["'\`]([^"'\`\s\\]{16,200})["'\`]|([A-Za-z0-9+/=_.~-]{16,200})(?=[ \t]*(?:\r?\n|$)))`,
  'g',
);

/** Settings named like a secret that hold something else: where the secret is, what it is called, how it is sent. */
const NOT_A_SECRET_NAME = /(?:url|uri|path|file|dir|header|name|env|var|prefix|type|field|param|label|id|length|count|limit|endpoint|hash|regex|pattern|key_?id|id_?key|mode|kind|format|usage|tokeniz\w*)$/i;

/** Bits of information per character: random keys have 3.5 or more, words and identifiers less. */
export function entropy(value: string): number {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) bits -= (count / value.length) * Math.log2(count / value.length);
  return bits;
}

/** A literal that looks generated: long, mixing letters and digits, high entropy, not a path, URL or dotted name. */
export function looksGenerated(value: string): boolean {
  if (value.length < 16 || isPlaceholder(value)) return false;
  if (!/[0-9]/.test(value) || !/[A-Za-z]/.test(value)) return false;
  if (/:\/\/|^[./~$%{]/.test(value)) return false;
  // Words and numbers joined by separators (`min-length-12-with-digits`, `app.secret.v2`) are names, not keys.
  if (/^(?:[A-Za-z]+|\d+|v\d+)(?:[-_./:](?:[A-Za-z]+|\d+|v\d+))*$/.test(value)) return false;
  return entropy(value) >= 3.5;
}

function acceptAssigned(match: RegExpExecArray): boolean {
  if (NOT_A_SECRET_NAME.test(/^[\w-]+/.exec(match[0])?.[0] ?? '')) return false;
  return looksGenerated(match[2] ?? match[3] ?? '');
}

function decodeBase64(text: string): string {
  return Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
}

/** A signed JWT: its header decodes to JSON naming an algorithm. A Supabase-style public `anon` key is not a secret. */
function acceptJwt(match: RegExpExecArray): boolean {
  const [header, payload] = match[0].split('.');
  try {
    const decoded = JSON.parse(decodeBase64(header!)) as { alg?: unknown };
    if (typeof decoded.alg !== 'string') return false;
    const claims = JSON.parse(decodeBase64(payload!)) as { role?: unknown };
    return claims.role !== 'anon';
  } catch {
    return false;
  }
}

/** Prefixes of credentials whose base64 encoding (from the credential's first byte) is also searched for. */
const HIDDEN_PREFIXES = ['ghp_', 'gho_', 'ghs_', 'ghu_', 'ghr_', 'github_pat_', 'npm_', 'AKIA', 'ASIA', 'sk_live_', 'xoxb-', 'xoxp-', 'sk-ant-', 'sk-proj-', 'AIza', 'glpat-', 'hf_', '-----BEGIN '];
/** The base64 characters fully determined by each prefix: 6 bits each, so ⌊8n/6⌋ of them. */
const HIDDEN_STARTS = [...new Set(HIDDEN_PREFIXES.map((prefix) => Buffer.from(prefix).toString('base64').slice(0, Math.floor((prefix.length * 8) / 6))))];

/** A known credential found inside a base64 literal, once decoded; undefined when the decoded text holds none. */
export function hiddenSecret(encoded: string): SecretMatch | undefined {
  const decoded = decodeBase64(encoded);
  return findSecrets(decoded).find(({ format, match }) => format.id !== 'base64-secret' && !isPlaceholder(match[0]) && (format.accept?.(match) ?? true));
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function base62(value: number, width: number): string {
  let result = '';
  let rest = value;
  while (rest > 0) {
    result = BASE62[rest % 62] + result;
    rest = Math.floor(rest / 62);
  }
  return result.padStart(width, '0');
}

/**
 * GitHub's and npm's token scheme (github.blog, "Behind GitHub's new authentication token formats", 2021): prefix,
 * 30 random base62 characters, then the CRC32 of those 30 characters in 6 base62 digits.
 */
export function checksumOk(token: string): 'valid' | 'invalid' {
  const body = token.slice(token.indexOf('_') + 1);
  const random = body.slice(0, -6);
  return base62(crc32(random), 6) === body.slice(-6) ? 'valid' : 'invalid';
}

export const SECRET_FORMATS: readonly SecretFormat[] = [
  { id: 'github-token', label: 'GitHub token', pattern: /\bgh[pousr]_[A-Za-z0-9]{36}\b/g, validate: checksumOk },
  { id: 'github-fine-grained-pat', label: 'GitHub fine-grained personal access token', pattern: /\bgithub_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}\b/g },
  { id: 'npm-token', label: 'npm access token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g, validate: checksumOk },
  { id: 'aws-access-key-id', label: 'AWS access key id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b/g },
  { id: 'stripe-live-key', label: 'Stripe live secret key', pattern: /\b[sr]k_live_[A-Za-z0-9]{24,247}\b/g },
  { id: 'slack-token', label: 'Slack token', pattern: /\bxox[baprs]-[0-9]{6,15}-[0-9A-Za-z-]{8,}\b/g },
  { id: 'slack-webhook', label: 'Slack incoming webhook', pattern: /https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]{6,}\/B[A-Z0-9]{6,}\/[A-Za-z0-9]{20,}/g },
  { id: 'anthropic-key', label: 'Anthropic API key', pattern: /\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{80,}/g },
  { id: 'openai-project-key', label: 'OpenAI API key', pattern: /\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}/g },
  { id: 'openai-legacy-key', label: 'OpenAI API key', pattern: /\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b|\bsk-[A-Za-z0-9]{48}\b/g },
  // A Google API key names a project for quota and billing and is meant to ship in web pages and apps, restricted by
  // referrer or API in the console; an unrestricted one still lets others spend the owner's quota. Medium: check the
  // restrictions, unlike a key that grants access to data or accounts.
  { id: 'google-api-key', label: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g, severity: 'medium' },
  { id: 'gitlab-token', label: 'GitLab personal access token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { id: 'sendgrid-key', label: 'SendGrid API key', pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g },
  { id: 'twilio-api-key', label: 'Twilio API key', pattern: /\bSK[0-9a-f]{32}\b/g, needsContext: /twilio/i },
  { id: 'huggingface-token', label: 'Hugging Face token', pattern: /\bhf_[A-Za-z]{34}\b/g },
  {
    id: 'private-key',
    label: 'private key',
    pattern: /-----BEGIN ((?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?)-----[\s\S]{64,16384}?-----END \1-----/g,
  },
  {
    id: 'jwt',
    label: 'signed JSON Web Token',
    pattern: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,}/g,
    accept: acceptJwt,
    severity: 'medium',
  },
  {
    id: 'base64-secret',
    label: 'credential hidden in base64',
    pattern: new RegExp(`(?:${HIDDEN_STARTS.map((start) => start.replace(/[+/]/g, '\\$&')).join('|')})[A-Za-z0-9+/]{16,}={0,2}`, 'g'),
    accept: (match) => hiddenSecret(match[0]) !== undefined,
  },
  {
    id: 'assigned-secret',
    label: 'high-entropy value assigned to a secret-named setting',
    pattern: ASSIGNED,
    accept: acceptAssigned,
    severity: 'medium',
  },
];

/**
 * Every place a format above can match starts with one of these (a format's leading `\b` is checked by the format
 * itself). Searching for them once and trying the formats only there reads a file in one pass instead of one per
 * format. secret-formats.test.ts checks it against matching each format over the whole text.
 */
const SECRET_START = new RegExp(
  [
    'gh[pousr]_|github_pat_|npm_|A[KSB]IA|ACCA|[sr]k_live_|xox[baprs]-|https:\\/\\/hooks\\.slack\\.com\\/|sk-|AIza|glpat-|SG\\.|SK|hf_|-----BEGIN |eyJ',
    ...HIDDEN_STARTS.map((start) => start.replace(/[+/]/g, '\\$&')),
    SECRET_NAME,
  ].join('|'),
  'g',
);

const STICKY = new Map(SECRET_FORMATS.map((format) => [format, new RegExp(format.pattern.source, 'y')]));

export interface SecretMatch {
  format: SecretFormat;
  match: RegExpExecArray;
}

/**
 * Every match of every format in `text`, grouped by format in catalog order: the same matches as running each
 * format's global pattern over the text, found in one pass.
 */
export function findSecrets(text: string): SecretMatch[] {
  const found = new Map<SecretFormat, RegExpExecArray[]>();
  // Per format, where its previous match ended: a global pattern does not look for its next match inside the last.
  const resumeAt = new Map<SecretFormat, number>();
  SECRET_START.lastIndex = 0;
  for (let start = SECRET_START.exec(text); start !== null; start = SECRET_START.exec(text)) {
    const at = start.index;
    for (const [format, sticky] of STICKY) {
      if ((resumeAt.get(format) ?? 0) > at) continue;
      sticky.lastIndex = at;
      const match = sticky.exec(text);
      if (!match) continue;
      resumeAt.set(format, at + match[0].length);
      const matches = found.get(format);
      if (matches) matches.push(match);
      else found.set(format, [match]);
    }
    // Candidates may overlap (`sk-` inside a longer prefix): resume right after this one's first character.
    SECRET_START.lastIndex = at + 1;
  }
  return SECRET_FORMATS.flatMap((format) => (found.get(format) ?? []).map((match) => ({ format, match })));
}

/** A 40-character AWS secret access key near an access key id makes the pair usable. */
export const AWS_SECRET = /(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/;

/** Words and shapes of documentation values: never real credentials. */
const PLACEHOLDER = /example|sample|dummy|placeholder|your[_-]?|redacted|changeme|fake|x{4,}|X{4,}|\*{3,}|\.{3}|<[^>]*>|\$\{/i;

export function isPlaceholder(secret: string): boolean {
  if (PLACEHOLDER.test(secret)) return true;
  const body = secret.replace(/^[a-z]+[_-](?:[a-z]+[_-])?/i, '');
  if (/(.)\1{7,}/.test(body)) return true;
  // Long runs of one alphabet in order (abcdef…, 123456…) are typed, not generated.
  if (/(?:0123456789|abcdefghij|ABCDEFGHIJ)/.test(body)) return true;
  return new Set(body).size < 8;
}

/** First and last four characters, the rest hidden: enough to find the secret, useless to anyone reading the report. */
export function maskSecret(secret: string): string {
  if (secret.length <= 12) return `${secret.slice(0, 2)}${'*'.repeat(Math.max(secret.length - 2, 0))}`;
  return `${secret.slice(0, 4)}${'*'.repeat(Math.min(secret.length - 8, 24))}${secret.slice(-4)}`;
}

/** Files where credentials are expected to be fake: tests, fixtures, examples and documentation. */
export const EXAMPLE_PATH =
  /(?:^|\/)(?:tests?|__tests__|spec|specs|fixtures?|__fixtures__|testdata|test-data|examples?|samples?|docs?|mocks?|__mocks__)\/|\.(?:test|spec)\.[cm]?[jt]sx?$|(?:^|\/)test_[^/]+\.py$|_test\.py$|\.(?:example|sample|template|dist)$|(?:^|\/)README[^/]*$/i;

export const LOCKFILE = /(?:^|\/)(?:package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?|poetry\.lock|uv\.lock|Pipfile\.lock|pdm\.lock|Cargo\.lock|composer\.lock|Gemfile\.lock)$/;
