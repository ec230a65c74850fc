import { describe, expect, it } from 'vitest';
import { formatRun, isReportFormat, REPORT_FORMATS, REPORTERS } from './index.js';
import { sampleRun } from './sample-run.js';

describe('REPORTERS', () => {
  it('offers exactly the documented formats', () => {
    expect(REPORT_FORMATS).toEqual(['text', 'json', 'sarif', 'markdown', 'github', 'junit', 'gitlab-sast']);
    expect(isReportFormat('sarif')).toBe(true);
    expect(isReportFormat('toString')).toBe(false);
    expect(isReportFormat('xml')).toBe(false);
  });

  it('formatRun picks the reporter by name and passes options through', () => {
    const run = sampleRun();
    for (const format of REPORT_FORMATS) expect(formatRun(format, run)).toBe(REPORTERS[format](run));
    expect(JSON.parse(formatRun('json', run))).toEqual(run);
    expect(JSON.parse(formatRun('sarif', run)).version).toBe('2.1.0');
    expect(formatRun('text', run, { color: true })).toContain('\u001b[');
    expect(formatRun('text', run)).not.toContain('\u001b[');
  });
});
