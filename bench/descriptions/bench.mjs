#!/usr/bin/env node
// The poisoned-description benchmark (fast mode: the rules, no judges) over the built core: recall per poisoned
// style and the share of benign descriptions flagged, on the tuning corpus and on the held-out set written after
// tuning, plus the analyser's cost per description. See docs/accuracy.md, "Poisoned descriptions".
// Usage: npm run bench:descriptions  [-- --misses]  (lists the descriptions it gets wrong)
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RULES, modelTexts } from '../../packages/core/dist/index.js';
import { costPerText, evaluate, formatResult, realItems } from './measure.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const read = async (name) => JSON.parse(await readFile(path.join(here, name), 'utf8'));
const load = async (name) => (await read(name)).items;
const core = { rules: RULES, modelTexts };
const showMisses = process.argv.includes('--misses');

const real = realItems(await read('benign-real.json'));
const tuning = [...(await load('corpus.json')), ...real];
const heldOut = await load('held-out.json');

// The first description pays for loading the language model; measure the steady state after one warm-up pass.
evaluate(heldOut.slice(0, 5), core);
// Cost as a scan pays it: each real server's texts in one rule context, the description rules alone and all rules.
const descriptionRules = RULES.filter((rule) => ['tool-poisoning-directives', 'tool-poisoning-sensitive-access', 'tool-shadowing'].includes(rule.id));
costPerText(real, { rules: descriptionRules, modelTexts });
const alone = costPerText(real, { rules: descriptionRules, modelTexts });
const all = costPerText(real, core);
console.log(`cost on ${alone.texts} texts of ${alone.servers} real servers: description rules ${alone.msPerText.toFixed(2)} ms per text, all rules ${all.msPerText.toFixed(2)} ms per text\n`);
for (const [title, items] of [['tuning corpus (corpus.json + benign-real.json)', tuning], ['held-out set (held-out.json, written after tuning)', heldOut]]) {
  const result = evaluate(items, core);
  console.log(`${formatResult(title, result)}\n`);
  if (showMisses) {
    for (const miss of result.misses) console.log(`  ${miss.label === 'benign' ? 'FP' : 'FN'} ${miss.id}: ${miss.text.replace(/\s+/g, ' ').slice(0, 160)}`);
    console.log('');
  }
}
