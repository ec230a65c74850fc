#!/usr/bin/env node
// The accuracy benchmark: real npm MCP servers with public advisories (bench/accuracy.json), each vulnerable and fixed
// version scanned with the built core, plus servers believed clean. Reports recall, precision and the clean-server rate.
// Usage: node bench/accuracy-bench.mjs [--mode fast|deep|both] [--only SUBSTRING] [--json PATH] [--markdown] [--check]
//        [--core PATH/TO/packages/core/dist/index.js]  (A/B: measure another build of the core)
// See docs/accuracy.md for the corpus, the matching rule and the metrics.
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cacheKey, cachedWorkspace, ensureCorpus } from './corpus-cache.mjs';
import {
  checkSummary,
  evaluateAdvisory,
  evaluateClean,
  formatModeMarkdown,
  formatModeText,
  packagesToScan,
  percent,
  summarize,
  validateCorpus,
} from './accuracy.mjs';
import { formatTable } from './measure.mjs';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.dirname(benchDir);
const cacheDir = path.join(repoRoot, '.bench-cache');
const lastRunPath = path.join(cacheDir, 'accuracy-last-run.json');

const { values: args } = parseArgs({
  options: {
    mode: { type: 'string', default: 'both' },
    only: { type: 'string' },
    json: { type: 'string' },
    markdown: { type: 'boolean', default: false },
    check: { type: 'boolean', default: false },
    core: { type: 'string' },
  },
});

// --markdown renders the last run (the tables of docs/accuracy.md) and measures nothing.
if (args.markdown) {
  const run = JSON.parse(await readFile(lastRunPath, 'utf8'));
  const edits = run.uncommittedCoreEdits ? ' plus uncommitted core edits' : '';
  console.log(`Run of ${run.at.slice(0, 16).replace('T', ' ')} UTC: svc ${run.svcVersion} core at ${run.commit}${edits}, ${run.environment.node}.\n`);
  console.log(run.modes.map((result) => formatModeMarkdown(result)).join('\n\n'));
  process.exit(0);
}

const modes = args.mode === 'both' ? ['fast', 'deep'] : [args.mode];
if (!modes.every((mode) => mode === 'fast' || mode === 'deep')) {
  console.error(`unknown --mode ${args.mode} (expected fast, deep or both)`);
  process.exit(2);
}

const corePath = path.resolve(args.core ?? path.join(repoRoot, 'packages/core/dist/index.js'));
const core = await import(corePath).catch((error) => {
  console.error(`the built core at ${corePath} failed to load (run \`npm run build -w @svc/core\`): ${error.message}`);
  process.exit(2);
});

const corpus = JSON.parse(await readFile(path.join(benchDir, 'accuracy.json'), 'utf8'));
const problems = validateCorpus(corpus, core.CATEGORIES ?? []);
if (problems.length > 0) {
  console.error(`bench/accuracy.json is invalid:\n  ${problems.join('\n  ')}`);
  process.exit(2);
}
if (args.only) {
  const only = args.only;
  corpus.advisories = corpus.advisories.filter((entry) => entry.package.includes(only) || entry.id.includes(only));
  corpus.clean = corpus.clean.filter((entry) => entry.name.includes(only));
}

const wanted = packagesToScan(corpus);
const { ready, failed } = await ensureCorpus({
  packages: wanted,
  cacheDir,
  core,
  log: (message) => console.error(message),
  // A version the registry no longer serves (postmark-mcp) is expected; the report lists it as not scanned.
  warn: (message) => console.error(`note: ${message}`),
});
const readyByKey = new Map(ready.map((entry) => [cacheKey(entry), entry]));
const failedByKey = new Map(failed.map((entry) => [cacheKey(entry), entry.error]));
console.log(`packages: ${ready.length} of ${wanted.length} ready${failed.length ? `, ${failed.length} not fetchable` : ''}`);

const started = new Date();
const results = [];
for (const mode of modes) {
  const outcomes = new Map();
  for (const entry of wanted) {
    const key = cacheKey(entry);
    const cached = readyByKey.get(key);
    if (!cached) {
      outcomes.set(key, { error: failedByKey.get(key) ?? 'not fetched' });
      continue;
    }
    try {
      const report = await core.scanWorkspace(cachedWorkspace(cached), { mode });
      // Keep only what the evaluation reads: a deep report of a large package is megabytes.
      outcomes.set(key, { report: { score: report.score, findings: report.findings, dismissed: report.dismissed ?? [] } });
    } catch (error) {
      outcomes.set(key, { error: error instanceof Error ? error.message : String(error) });
      console.error(`scan failed (${mode}) ${key}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const outcome = (name, version) => (version ? outcomes.get(cacheKey({ name, version })) : undefined);
  const advisories = corpus.advisories.map((entry) =>
    evaluateAdvisory(entry, outcome(entry.package, entry.vulnerable), outcome(entry.package, entry.fixed)),
  );
  const clean = corpus.clean.map((entry) => evaluateClean(entry, outcome(entry.name, entry.version)));
  const result = { mode, advisories, clean, summary: summarize(advisories, clean) };
  results.push(result);
  console.log(`\n${formatModeText(result, formatTable)}\n`);
}

/** The commit the measured core was built from, and whether its sources had uncommitted edits (other work in progress). */
function coreRevision(distFile) {
  const coreDir = path.dirname(path.dirname(distFile));
  try {
    const commit = execFileSync('git', ['-C', coreDir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', coreDir, 'status', '--porcelain', '--', 'src'], { encoding: 'utf8' }).trim() !== '';
    return { commit, uncommittedCoreEdits: dirty };
  } catch {
    return { commit: 'unknown', uncommittedCoreEdits: null };
  }
}

const run = {
  at: started.toISOString(),
  ...coreRevision(corePath),
  svcVersion: core.SVC_VERSION ?? 'unknown',
  core: path.relative(repoRoot, corePath),
  environment: { node: process.version, platform: `${process.platform} ${process.arch}`, cpus: os.cpus().length },
  only: args.only ?? null,
  failed,
  modes: results,
};
await mkdir(cacheDir, { recursive: true });
// A filtered run would overwrite the full one that --markdown renders for the docs, so only full runs are kept.
if (!args.only) await writeFile(lastRunPath, JSON.stringify(run, null, 2));
if (args.json) await writeFile(args.json, JSON.stringify(run, null, 2));

let failedCheck = false;
for (const result of results) {
  for (const verdict of checkSummary(result.summary)) {
    console.log(`${result.mode}: ${verdict.name} ${percent(verdict.value)} (target ${verdict.target}) ${verdict.pass ? 'pass' : 'FAIL'}`);
    if (!verdict.pass) failedCheck = true;
  }
}
process.exit(args.check && failedCheck ? 1 : 0);
