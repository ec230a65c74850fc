#!/usr/bin/env node
// The floors the scan is measured against, run as a process of their own like `svc scan`:
//   node bench/parse-floor.mjs <file list>                 bare parse: read each file, parse it, read only `errors`
//   node bench/parse-floor.mjs <file list> --materialise   parse and build the JS AST (`program`) as the scanner does
// The list holds one absolute path per line: the JS/TS files the scan hands to its analyzer. Nothing else runs.
import { readFileSync } from 'node:fs';
import { parseSync, rawTransferSupported } from 'oxc-parser';

const [listPath, mode] = process.argv.slice(2);
if (!listPath) {
  console.error('usage: parse-floor.mjs <file list> [--materialise]');
  process.exit(2);
}
const materialise = mode === '--materialise';
// The scanner takes raw transfer where the runtime has it; so does the materialising floor.
const raw = materialise && rawTransferSupported();

const lang = (file) => (file.endsWith('.tsx') ? 'tsx' : /\.[cm]?ts$/.test(file) ? 'ts' : file.endsWith('.jsx') ? 'jsx' : 'js');
let errors = 0;
let nodes = 0;
for (const file of readFileSync(listPath, 'utf8').split('\n').filter(Boolean)) {
  const text = readFileSync(file, 'utf8');
  const result = parseSync(file, text, { sourceType: 'module', lang: lang(file), preserveParens: false, ...(raw ? { experimentalRawTransfer: true } : {}) });
  errors += result.errors.length;
  if (materialise) nodes += result.program.body.length;
}
// Printed so the work cannot be optimised away, and so the bench can check the run did something.
console.log(JSON.stringify({ errors, statements: nodes }));
