/* eslint-disable no-control-regex -- these tests look for raw control characters on purpose */
import { describe, expect, it } from 'vitest';
import { jsonReporter } from './json.js';
import { sampleRun } from './sample-run.js';

describe('jsonReporter', () => {
  it('round-trips the run exactly, hidden characters included', () => {
    const run = sampleRun();
    const output = jsonReporter(run);
    expect(JSON.parse(output)).toEqual(run);
    expect(output.endsWith('}\n')).toBe(true);
  });

  it('writes hidden characters as escapes, so printing the JSON is safe', () => {
    const output = jsonReporter(sampleRun());
    expect(output).toContain('\\u200b');
    expect(output).toContain('\\u001b[31m');
    expect(output.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001F\u007F-\u009F\u200B\u202E\u{E0049}]/u);
  });
});
