import { test } from 'vitest';
import { scanInputs } from '../../engine.js';

test('scan', async () => {
  for (const dir of (process.env.DUMP_DIRS ?? '').split(',').filter(Boolean)) {
    const run = await scanInputs([dir], { mode: (process.env.DUMP_MODE as 'fast') ?? 'fast' } as never);
    for (const report of (run as { reports: Array<{ findings: Array<{ severity: string; ruleId: string; message: string; location?: { file: string; line: number }; tool?: { name: string } }>; score: number; grade: string }> }).reports) {
      console.log('=====', dir, report.score, report.grade);
      for (const f of report.findings) console.log('FINDING', f.severity, f.ruleId, f.location ? `${f.location.file}:${f.location.line}` : '', f.tool?.name ?? '', f.message.slice(0, 120));
    }
  }
});
