import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TIERS } from '../domain/tiers.js';
import { REQUEST_LIMIT, SCAN_LIMITS } from './limits.js';

// docs/quotas.md is written by hand for readers; this keeps its numbers equal to the code's.
const doc = readFileSync(fileURLToPath(new URL('../../../../docs/quotas.md', import.meta.url)), 'utf8');

/** The body rows (cells trimmed) of the first table after `heading`. */
function tableAfter(heading: string): string[][] {
  const start = doc.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no heading ${heading}`);
  const lines = doc.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|').slice(1, -1).map((cell) => cell.trim()));
  }
  return rows;
}

const cell = (value: number | undefined, refused: boolean) => (refused ? 'refused' : value === undefined ? '—' : String(value));

describe('docs/quotas.md', () => {
  it('lists the public scan quotas of every tier as SCAN_LIMITS has them', () => {
    const expected = TIERS.map((tier) => {
      const limits = SCAN_LIMITS[tier];
      const noDeep = limits.deep === null;
      return [
        tier,
        String(limits.burstPerMinute),
        cell(limits.scans.day, false),
        cell(limits.scans.week, false),
        cell(limits.scans.month, false),
        cell(limits.deep?.week, noDeep),
        cell(limits.deep?.month, noDeep),
      ];
    });
    expect(tableAfter('### Public scans')).toEqual(expected);
  });

  it('lists the private scan quotas of every tier as SCAN_LIMITS has them', () => {
    const expected = TIERS.map((tier) => {
      const limits = SCAN_LIMITS[tier].private;
      return [tier, cell(limits?.scans.month, !limits), cell(limits?.deep.month, !limits)];
    });
    expect(tableAfter('### Private scans')).toEqual(expected);
  });

  it('states the request limits', () => {
    const rows = tableAfter('### Requests');
    expect(rows.map((row) => row[1])).toEqual([`${REQUEST_LIMIT.limit} requests / 5 minutes`, `${REQUEST_LIMIT.limit} requests / 5 minutes`]);
    expect(REQUEST_LIMIT.window).toBe('five_minutes');
  });
});
