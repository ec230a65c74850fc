// The poisoned-description corpus: validated, then measured in fast mode (the rules, no judges) against the targets
// of issue 15: recall of at least 90 % in every poisoned style, at most 1 % of benign descriptions flagged.
import { readFileSync } from 'node:fs';
import { RULES, modelTexts } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { evaluate, flagsOf, formatResult, realItems, type CorpusItem } from './measure.mjs';

const load = (name: string): CorpusItem[] => (JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8')) as { items: CorpusItem[] }).items;
const real = realItems(JSON.parse(readFileSync(new URL('./benign-real.json', import.meta.url), 'utf8')));
const corpus: CorpusItem[] = [...load('./corpus.json'), ...real];
const heldOut = load('./held-out.json');
const core = { rules: RULES, modelTexts };

describe('description corpus', () => {
  it.each([
    ['tuning', corpus],
    ['held-out', heldOut],
  ] as const)('the %s set is well formed and big enough', (_name, items) => {
    const ids = new Set<string>();
    for (const item of items) {
      expect(item.label === 'poisoned' || item.label === 'benign', item.id).toBe(true);
      expect(item.text.trim().length, item.id).toBeGreaterThan(10);
      expect(item.tool, item.id).toMatch(/\S/);
      expect(ids.has(item.id), `duplicate id ${item.id}`).toBe(false);
      ids.add(item.id);
    }
    const poisonedStyles = new Set(items.filter((item) => item.label === 'poisoned').map((item) => item.style));
    expect(poisonedStyles.size).toBeGreaterThanOrEqual(12);
    expect(items.filter((item) => item.label === 'poisoned').length).toBeGreaterThanOrEqual(_name === 'tuning' ? 300 : 60);
    expect(items.filter((item) => item.label === 'benign').length).toBeGreaterThanOrEqual(_name === 'tuning' ? 300 : 40);
  });

  it('finds at least 90 % of every poisoned style and flags at most 1 % of benign descriptions', () => {
    const result = evaluate(corpus, core);
    console.log(formatResult('tuning set', result));
    for (const miss of result.misses.slice(0, 40)) console.log(`${miss.label === 'benign' ? 'FP' : 'FN'} ${miss.id}: ${miss.text.replace(/\s+/g, ' ').slice(0, 200)}`);
    for (const row of result.rows.filter((row) => row.label === 'poisoned')) {
      expect(row.flagged / row.total, `recall of ${row.style}`).toBeGreaterThanOrEqual(0.9);
    }
    expect(result.benign.flagged / result.benign.total).toBeLessThanOrEqual(0.01);
  });

  it('on the held-out set, written after tuning, still flags at most 1 % of benign descriptions', () => {
    const result = evaluate(heldOut, core);
    console.log(formatResult('held-out set', result));
    for (const miss of result.misses) console.log(`${miss.label === 'benign' ? 'FP' : 'FN'} ${miss.id}: ${miss.text.replace(/\s+/g, ' ').slice(0, 200)}`);
    expect(result.benign.flagged / result.benign.total).toBeLessThanOrEqual(0.01);
  });

  it('explains each finding: the sentence, the act and why it is out of place', () => {
    const item = corpus.find((entry) => entry.id === 'sensitive-1-1')!;
    const [finding] = flagsOf(item, core);
    expect(finding?.message).toMatch(/has the model .+: .+/);
    expect(item.text).toContain(finding!.evidence.split(' … ')[0]!.slice(0, 20));
  });
});
