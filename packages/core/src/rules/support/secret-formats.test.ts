import { describe, expect, it } from 'vitest';
import { SECRET_FORMATS, findSecrets } from './secret-formats.js';

/** What the rule did before the one-pass search: each format's global pattern over the whole text. */
function perFormat(text: string): Array<[string, number, string]> {
  return SECRET_FORMATS.flatMap((format) => [...text.matchAll(format.pattern)].map((match): [string, number, string] => [format.id, match.index, match[0]]));
}

function onePass(text: string): Array<[string, number, string]> {
  return findSecrets(text).map(({ format, match }): [string, number, string] => [format.id, match.index, match[0]]);
}

/** A deterministic pseudo-random sequence (no real randomness in tests). */
function* lcg(seed: number): Generator<number> {
  let state = seed;
  for (;;) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    yield state;
  }
}

// Credential-shaped pieces, assembled at run time so this file holds nothing a secret scanner would flag. Prefixes
// appear whole, cut short and glued to each other, so overlapping and adjacent candidates are exercised.
const body = (length: number, alphabet = 'aB3dE5gH7jK9mN2pQ4sT6vW8yZ') =>
  Array.from({ length }, (_, index) => alphabet[(index * 11 + length) % alphabet.length]).join('');
const PIECES = [
  ['ghp', body(36)].join('_'),
  ['gho', body(20)].join('_'),
  ['github', 'pat', body(22), body(59)].join('_'),
  ['npm', body(36)].join('_'),
  ['AKIA', 'Q3EGRUJ5NWXL7VZD'].join(''),
  ['ASIA', 'Q3EGRUJ5NWXL7VZ'].join(''),
  ['sk', 'live', body(30)].join('_'),
  ['rk', 'live', body(10)].join('_'),
  ['xoxb', '123456789', body(12)].join('-'),
  ['https://hooks.slack.com/services', `T${body(8, 'ABC123')}`, `B${body(8, 'XYZ789')}`, body(24)].join('/'),
  ['sk', 'ant', 'api03', body(85)].join('-'),
  ['sk', 'proj', body(45)].join('-'),
  ['sk', body(48)].join('-'),
  ['sk', `${body(20)}T3BlbkFJ${body(20)}`].join('-'),
  ['AIza', body(35)].join(''),
  ['glpat', body(20)].join('-'),
  ['SG', body(22), body(43)].join('.'),
  ['SK', body(32, '0123456789abcdef')].join(''),
  'twilio',
  ['hf', body(34, 'abcdefghijklmnopqrstuvwxyzABCDEFGH')].join('_'),
  ['-----BEGIN', 'EC PRIVATE KEY-----'].join(' '),
  ['-----END', 'EC PRIVATE KEY-----'].join(' '),
  body(70),
  ['eyJ', body(14)].join(''),
  '.',
  'apiKey: "',
  'TOKEN=',
  'client_secret = \'',
  Buffer.from(['ghp', body(36)].join('_')).toString('base64'),
  Buffer.from('-----BEGIN ').toString('base64'),
  'sk-',
  'SKSK',
  'gh',
  'p_',
  '_',
  '-',
  ' ',
  '\n',
  '"',
  'x',
];

describe('findSecrets', () => {
  it('finds exactly what matching each format over the whole text finds', () => {
    const random = lcg(11);
    let matches = 0;
    for (let sample = 0; sample < 4000; sample++) {
      let text = '';
      const length = 1 + (random.next().value % 12);
      for (let i = 0; i < length; i++) text += PIECES[random.next().value % PIECES.length];
      const expected = perFormat(text);
      matches += expected.length;
      expect(onePass(text), JSON.stringify(text)).toEqual(expected);
    }
    // The samples must actually contain credentials, or the comparison proves nothing.
    expect(matches).toBeGreaterThan(2000);
  });

  it('finds a PEM block and the formats around it in one text', () => {
    const pem = ['-----BEGIN RSA PRIVATE KEY-----', body(64), body(64), '-----END RSA PRIVATE KEY-----'].join('\n');
    const text = `const key = \`${pem}\`;\nconst id = "${PIECES[4]}";\n`;
    expect(onePass(text).map(([id]) => id)).toEqual(['aws-access-key-id', 'private-key']);
    expect(onePass(text)).toEqual(perFormat(text));
  });
});
