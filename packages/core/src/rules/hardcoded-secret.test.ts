import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import rule from './hardcoded-secret.js';
import { base62, checksumOk, maskSecret } from './support/secret-formats.js';
import { runRule } from './support/test-context.js';

// Secrets are assembled at run time so this file holds no string a secret scanner (or push protection) would flag.
const random = (length: number, alphabet = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789') =>
  Array.from({ length }, (_, index) => alphabet[(index * 7919 + length * 31 + 13) % alphabet.length]).join('');
const githubToken = (prefix = 'ghp') => {
  const body = random(30);
  return `${prefix}_${body}${base62(crc32(body), 6)}`;
};
const awsKeyId = ['AKIA', 'Q3EGRUJ5NWXL7VZD'].join('');
const awsSecret = random(40, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/+');
const stripeKey = ['sk', 'live', random(32)].join('_');
const pem = ['-----BEGIN RSA PRIVATE KEY-----', ...Array.from({ length: 6 }, (_, i) => random(64 - i)), '-----END RSA PRIVATE KEY-----'].join('\n');

describe('hardcoded-secret', () => {
  it('validates GitHub/npm checksums', () => {
    expect(checksumOk(githubToken())).toBe('valid');
    expect(checksumOk(`ghp_${random(30)}AAAAAA`)).toBe('invalid');
    const npmBody = random(30);
    expect(checksumOk(`npm_${npmBody}${base62(crc32(npmBody), 6)}`)).toBe('valid');
  });

  it('masks all but the first and last four characters', () => {
    expect(maskSecret('ghp_abcdefghijklmnopqrstuvwxyz0123456789')).toMatch(/^ghp_\*+6789$/);
  });

  it('reports a checksum-valid GitHub token in source with a masked line as evidence', () => {
    const token = githubToken();
    const text = `import { Octokit } from "octokit";\nconst octokit = new Octokit({ auth: "${token}" });\n`;
    const findings = runRule(rule, { files: [{ path: 'src/index.ts', text, language: 'typescript' }] });
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity: 'high', location: { file: 'src/index.ts', line: 2, column: 38 } });
    expect(findings[0]?.message).toContain('valid checksum');
    expect(findings[0]?.evidence).toContain(maskSecret(token));
    expect(findings[0]?.evidence).not.toContain(token);
  });

  it('reports an AWS key pair high, a lone key id medium', () => {
    const paired = runRule(rule, {
      files: [{ path: 'server.py', text: `AWS_ACCESS_KEY_ID = "${awsKeyId}"\nAWS_SECRET_ACCESS_KEY = "${awsSecret}"\n`, language: 'python' }],
    });
    expect(paired.map((finding) => finding.severity)).toEqual(['high']);
    expect(paired[0]?.evidence).not.toContain(awsKeyId);
    const alone = runRule(rule, {
      files: [{ path: 'config.json', text: `{"key": "${awsKeyId}",\n "commit": "3f786850e387550fdab836ed7e6dc881de23001b"}`, role: 'config' }],
    });
    expect(alone.map((finding) => finding.severity)).toEqual(['medium']);
  });

  it('reports each provider format', () => {
    const secrets = [
      stripeKey,
      ['xoxb', '1234567890', '1234567890123', random(24)].join('-'),
      `sk-ant-api03-${random(93)}AA`,
      `sk-proj-${random(60)}`,
      `AIza${random(35)}`,
      `glpat-${random(20)}`,
      `SG.${random(22)}.${random(43)}`,
      `hf_${random(34, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ')}`,
    ];
    const text = secrets.map((secret, index) => `const k${index} = "${secret}";`).join('\n');
    const findings = runRule(rule, { files: [{ path: 'src/keys.ts', text, language: 'typescript' }] });
    expect(findings.map((finding) => finding.location?.line).sort()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const secret of secrets) expect(findings.some((finding) => finding.evidence.includes(secret))).toBe(false);
  });

  it('reports a PEM private key block with a body, showing only its header', () => {
    const findings = runRule(rule, { files: [{ path: 'deploy/key.pem', text: pem, role: 'other' }] });
    expect(findings).toHaveLength(1);
    expect(findings[0]?.evidence).toBe('-----BEGIN RSA PRIVATE KEY----- (6 lines)');
  });

  it('needs Twilio context for the hex-shaped Twilio key', () => {
    const key = `SK${'0123456789abcdef'.split('').reverse().join('')}${'a1b2c3d4e5f60789'}`;
    expect(runRule(rule, { files: [{ path: 'a.js', text: `const sha = "${key}";` }] })).toEqual([]);
    expect(runRule(rule, { files: [{ path: 'a.js', text: `const twilio = require("twilio")("${key}");` }] })).toHaveLength(1);
  });

  it.each([
    ['the AWS documentation key', 'AKIAIOSFODNN7EXAMPLE'],
    ['a typed placeholder', `ghp_${'x'.repeat(36)}`],
    ['a your-key placeholder', 'sk-proj-your_openai_api_key_goes_here_1234567890abcdef'],
    ['an ordered run', 'sk_live_0123456789abcdefghijklmnop'],
    ['a PEM header without a body', '-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----'],
    ['a test Stripe key', `sk_test_${random(32)}`],
  ])('ignores %s', (_name, secret) => {
    expect(runRule(rule, { files: [{ path: 'src/a.ts', text: `const key = "${secret}";` }] })).toEqual([]);
  });

  it('reports a made-up GitHub token (bad checksum) at low severity', () => {
    const findings = runRule(rule, { files: [{ path: 'src/a.ts', text: `const t = "ghp_${random(30)}Zz9Yy8";` }] });
    expect(findings.map((finding) => finding.severity)).toEqual(['low']);
  });

  it('lowers secrets in tests, fixtures, examples and docs to low', () => {
    const token = githubToken('gho');
    const paths = ['test/auth.test.ts', 'src/__tests__/a.ts', 'fixtures/x/server.py', '.env.example', 'docs/setup.md', 'tests/test_auth.py'];
    const findings = runRule(rule, { files: paths.map((path) => ({ path, text: `TOKEN=${token}` })) });
    expect(findings.map((finding) => finding.severity)).toEqual(paths.map(() => 'low'));
  });

  it('skips lockfiles and vendored files', () => {
    const token = githubToken();
    const findings = runRule(rule, {
      files: [
        { path: 'package-lock.json', text: `"${token}"` },
        { path: 'node_modules/x/index.js', text: `"${token}"`, role: 'vendored' },
      ],
    });
    expect(findings).toEqual([]);
  });

  describe('credentials recognised by shape', () => {
    const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const jwt = (payload: object, header: object = { alg: 'HS256', typ: 'JWT' }) => `${b64url(header)}.${b64url(payload)}.${random(43)}`;
    const scanText = (path: string, text: string, language?: 'typescript' | 'python') =>
      runRule(rule, { files: [{ path, text, ...(language && { language }) }] }).map((finding) => `${finding.severity} ${finding.message}`);

    it('reports a signed JWT at medium, not one whose header names no algorithm nor a public anon key', () => {
      expect(scanText('src/client.ts', `const session = "${jwt({ sub: 'svc-reporting', iat: 1735689600 })}";`, 'typescript')).toEqual([
        'medium src/client.ts contains a signed JSON Web Token',
      ]);
      expect(scanText('src/client.ts', `const x = "${jwt({ sub: 'a1b2c3d4e5' }, { typ: 'JWT', kid: 'k1' })}";`, 'typescript')).toEqual([]);
      expect(scanText('src/client.ts', `const anon = "${jwt({ role: 'anon', iss: 'supabase' })}";`, 'typescript')).toEqual([]);
    });

    it('reports a high-entropy literal assigned to a secret-named setting, quoted in code and unquoted in .env', () => {
      const value = random(32);
      expect(scanText('src/db.py', `DB_PASSWORD = "${value}"\n`, 'python')).toEqual([
        'medium src/db.py contains a high-entropy value assigned to a secret-named setting',
      ]);
      expect(scanText('.env', `PORT=8080\nAPI_TOKEN=${value}\n`)).toEqual([
        'medium .env contains a high-entropy value assigned to a secret-named setting in a secrets file shipped with the package',
      ]);
      expect(scanText('README.md', `Session token: ${value}\n`)).toEqual([]);
      const location = runRule(rule, { files: [{ path: 'src/a.ts', text: `export const config = {\n  apiKey: '${value}',\n};`, language: 'typescript' }] })[0]?.location;
      expect(location).toMatchObject({ line: 2, column: 12 });
    });

    it('does not report placeholders, words, names, URLs, expressions or a setting that only names the secret', () => {
      const cases = [
        `password = "changeme-changeme-1"`,
        `api_key = "<your-api-key-here-123>"`,
        `token = "xxxxxxxxxxxxxxxxxxxx"`,
        `apiKey: "\${process.env.API_KEY_2024}"`,
        `const token = process.env.GITHUB_TOKEN_V2;`,
        `token = os.environ["SERVICE_TOKEN_2"]`,
        `tokenUrl: "https://auth.example.org/oauth2/v1/token"`,
        `API_KEY_ENV = "OPENAI_API_KEY_V2"`,
        `secretName: "prod/payments/stripe-key-2"`,
        `tokenizer = "bert-base-uncased-v2"`,
        `password_hash_field = "a8f5f167f44f4964e6c998dee827110c"`,
        `const secretKey = deriveKey(masterKey, salt2024abcdefgh);`,
      ];
      for (const text of cases) expect(scanText('src/settings.ts', text, 'typescript'), text).toEqual([]);
    });

    it('lowers a named literal in a test file to low', () => {
      expect(scanText('tests/test_login.py', `password = "${random(24)}"`, 'python')).toEqual([
        'low tests/test_login.py contains a high-entropy value assigned to a secret-named setting in a test, example or documentation file',
      ]);
    });

    it('decodes base64 literals that hold a known credential', () => {
      const hidden = Buffer.from(githubToken()).toString('base64');
      const found = scanText('src/update.js', `const k = Buffer.from("${hidden}", "base64").toString();`, 'typescript');
      expect(found).toEqual(['high src/update.js contains a credential hidden in base64 (a GitHub token, once decoded)']);
      const harmless = Buffer.from('ghp_ is the prefix GitHub gives classic tokens').toString('base64');
      expect(scanText('src/update.js', `const k = "${harmless}";`, 'typescript')).toEqual([]);
    });

    it('reports a private key file shipped in the package as such', () => {
      expect(scanText('deploy/id_rsa', pem)).toEqual(['high deploy/id_rsa contains a private key in a secrets file shipped with the package']);
    });
  });
});
