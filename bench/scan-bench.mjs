#!/usr/bin/env node
// The scan benchmark: real MCP server packages from npm, scanned as a user runs `svc scan` (all targets in one CLI
// process, against a bare-parse and a parse-and-materialise floor, each a process of its own) and in-process per
// package with the built core.
// Usage: node bench/scan-bench.mjs [--check] [--reps N] [--only SUBSTRING] [--skip-cli] [--core PATH] [--results FILE]
//        [--findings [--mode fast|deep] [--severity high|info …]] [--markdown]
// See bench/README.md for what is measured and how.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startLocalRegistry } from './local-registry.mjs';
import { cachedWorkspace, ensureCorpus, readCorpus } from './corpus-cache.mjs';
import { checkTargets, formatMarkdown, formatTable, median, percentile, round, throughput } from './measure.mjs';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.dirname(benchDir);
const cacheDir = path.join(repoRoot, '.bench-cache');
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'];

const { values: args } = parseArgs({
  options: {
    check: { type: 'boolean', default: false },
    reps: { type: 'string', default: '3' },
    only: { type: 'string' },
    findings: { type: 'boolean', default: false },
    mode: { type: 'string', default: 'fast' },
    markdown: { type: 'boolean', default: false },
    severity: { type: 'string', default: 'high' },
    'skip-cli': { type: 'boolean', default: false },
    // Another build of the core (its dist/index.js) for the in-process passes and --findings: A/B against a baseline.
    core: { type: 'string' },
    // Where the run's results go (and where --markdown reads them); the default is in the shared cache.
    results: { type: 'string' },
  },
});
const resultPath = path.resolve(args.results ?? path.join(cacheDir, 'last-run.json'));

// --markdown renders the last run for bench/README.md and measures nothing.
if (args.markdown) {
  console.log(formatMarkdown(JSON.parse(await readFile(resultPath, 'utf8'))));
  process.exit(0);
}

const corePath = path.resolve(args.core ?? path.join(repoRoot, 'packages/core/dist/index.js'));
const core = await import(corePath).catch((error) => {
  if (error.code === 'ERR_MODULE_NOT_FOUND') {
    console.error(`the core is not built: run \`npm run build -w @svc/core\` (${error.message})`);
  } else {
    console.error(`the built core failed to load: ${error.stack ?? error.message}`);
  }
  process.exit(2);
});

let packages = await readCorpus(path.join(benchDir, 'corpus.json'));
if (args.only) packages = packages.filter((entry) => entry.name.includes(args.only));

const { ready, failed } = await ensureCorpus({
  packages,
  cacheDir,
  core,
  log: (message) => console.error(message),
  warn: (message) => console.error(`warning: ${message}`),
});
console.log(`corpus: ${ready.length} of ${packages.length} packages ready${failed.length ? ` (${failed.length} skipped)` : ''}`);
if (ready.length === 0) process.exit(args.check ? 1 : 0);

if (args.findings) {
  await printFindings(ready, args.mode === 'deep' ? 'deep' : 'fast', SEVERITIES.indexOf(args.severity) === -1 ? 1 : SEVERITIES.indexOf(args.severity));
} else {
  await benchmark(ready, Number.parseInt(args.reps, 10) || 3);
}

/**
 * Prints every finding at or above a severity (default high) over the corpus, grouped by package: the false-positive
 * review list, and with `--severity info` the whole output to diff between two builds.
 */
async function printFindings(entries, mode, lowestSeverity) {
  let total = 0;
  for (const entry of entries) {
    const report = await core.scanWorkspace(cachedWorkspace(entry), { mode });
    const serious = report.findings.filter((finding) => SEVERITIES.indexOf(finding.severity) <= lowestSeverity);
    if (serious.length === 0) continue;
    total += serious.length;
    console.log(`\n## ${entry.name}@${entry.version}  (${serious.length} at ${SEVERITIES[lowestSeverity]} or above, score ${report.score} ${report.grade})`);
    for (const finding of serious) {
      const where = finding.location
        ? `${finding.location.file}:${finding.location.line}`
        : finding.tool
          ? `${finding.tool.kind} ${finding.tool.name} ${finding.tool.field}`
          : '';
      const verdict = finding.consensus ? ` [${finding.consensus}]` : '';
      console.log(`- ${finding.severity.toUpperCase()} ${finding.ruleId}${verdict} ${where}`);
      console.log(`  ${finding.message}`);
      console.log(`  evidence: ${oneLine(finding.evidence, 200)}`);
    }
  }
  console.log(`\n${total} findings at ${SEVERITIES[lowestSeverity]} or above over ${entries.length} packages (${mode} mode)`);
}

async function benchmark(entries, reps) {
  // One inventory per package, outside the timing, decides the file set both passes see: exactly the files the engine
  // hands to the analyzers (role source or bundle, a language some analyzer claims).
  const subjects = [];
  for (const entry of entries) {
    const inventory = await core.inventoryWorkspace(entry.root);
    // The files the engine hands to the analyzers: after scoping, when the core scopes (an older build may not).
    const skipped = core.scopeCode ? core.scopeCode(inventory.files, inventory.manifests).skipped : new Set();
    const groups = [];
    let files = 0;
    let bytes = 0;
    for (const analyzer of core.ANALYZERS) {
      const selected = inventory.files.filter(
        (file) =>
          (file.role === 'source' || file.role === 'bundle') &&
          !skipped.has(file.path) &&
          file.language &&
          analyzer.languages.includes(file.language),
      );
      if (selected.length === 0) continue;
      groups.push({ analyzer, files: selected.map(({ text: _text, ...file }) => file) });
      files += selected.length;
      bytes += selected.reduce((sum, file) => sum + file.size, 0);
    }
    const times = { parse: { wall: [], cpu: [] }, fast: { wall: [], cpu: [] }, deep: { wall: [], cpu: [] } };
    subjects.push({ entry, groups, files, bytes, times, report: undefined });
  }

  const passes = {
    parse: (subject) => parseOnly(subject),
    fast: (subject) => core.scanWorkspace(cachedWorkspace(subject.entry), { mode: 'fast' }),
    deep: (subject) => core.scanWorkspace(cachedWorkspace(subject.entry), { mode: 'deep' }),
  };

  const loadBefore = os.loadavg()[0];
  const started = performance.now();

  // The run a user makes: one `svc scan` over every package as a target, beside the two floors over the files it
  // analyses, each in a process of its own. Interleaved per round; round 0 warms the page cache and is discarded.
  const userRun = args['skip-cli'] ? undefined : await measureUserRun(subjects, reps);

  // In-process, per package: round 0 warms up (JIT, wasm instantiation, file cache) and is discarded. Passes are
  // interleaved per package so drift (thermal, GC pressure, page cache) spreads evenly over all three. CPU time
  // (user + system of the whole process) is recorded beside wall time: on a busy machine wall time also counts
  // waiting for a core, CPU time only the work. No garbage collection is forced: each pass pays for what it leaves.
  for (let round = 0; round <= reps; round++) {
    for (const subject of subjects) {
      for (const [name, run] of Object.entries(passes)) {
        const cpuStart = process.cpuUsage();
        const start = performance.now();
        const result = await run(subject);
        const elapsed = performance.now() - start;
        const cpu = process.cpuUsage(cpuStart);
        if (round > 0) {
          subject.times[name].wall.push(elapsed);
          subject.times[name].cpu.push((cpu.user + cpu.system) / 1000);
        }
        if (name === 'fast') subject.report = result;
        if (name === 'deep') subject.deepReport = result;
      }
    }
    console.error(`in-process round ${round === 0 ? 'warm-up' : `${round}/${reps}`} done`);
  }
  const benchMs = performance.now() - started;
  const loadAfter = os.loadavg()[0];

  // End-to-end: what a user waits for on `svc scan npm:name@version` with a warm tarball cache (unpack into a temp
  // dir, inventory, analysis, rules, score, clean-up), once per package after the warm-up above.
  // The registry is a stand-in on 127.0.0.1 serving the cached corpus (local-registry.mjs): the packument request is
  // real HTTP, but measures the scanner, not the network.
  const registry = await startLocalRegistry(subjects.map((subject) => subject.entry), path.join(cacheDir, 'tarballs', 'npm'));
  const endToEnd = [];
  for (const subject of subjects) {
    const { name, version } = subject.entry;
    const start = performance.now();
    const run = await core.scanInputs([`npm:${name}@${version}`], { source: { cacheDir: path.join(cacheDir, 'tarballs'), npmRegistry: registry.url } });
    const elapsed = performance.now() - start;
    // A thin launcher's dependencies (scan/launcher.ts) are followed from the registry; those outside the corpus are
    // 404 here, answered at once, so the time is the package's own. Only a package that did not scan is left out.
    const own = run.reports.find((report) => report.target.launchedBy === undefined);
    if (!own) console.error(`warning: end-to-end ${name}@${version}: ${run.errors[0]?.message ?? 'no report'}`);
    else endToEnd.push(elapsed);
    subject.endToEndMs = elapsed;
    // The npm source always asks the registry for the packument (the cache is keyed by integrity): one local round
    // trip, then the unpack; kept apart so the fetch stage is visible as such.
    subject.fetchMs = own?.timings.fetch ?? Number.NaN;
  }
  await registry.close();

  const rows = subjects.map((subject) => {
    const parse = median(subject.times.parse.wall);
    const fast = median(subject.times.fast.wall);
    const deep = median(subject.times.deep.wall);
    const parseCpu = median(subject.times.parse.cpu);
    const fastCpu = median(subject.times.fast.cpu);
    const deepCpu = median(subject.times.deep.cpu);
    const counts = subject.report.counts;
    return {
      package: `${subject.entry.name}@${subject.entry.version}`,
      files: subject.files,
      kb: round(subject.bytes / 1024),
      parseMs: round(parse, 2),
      fastMs: round(fast, 2),
      ratio: parse > 0 ? round(fast / parse, 2) : Number.NaN,
      deepMs: round(deep, 2),
      parseCpuMs: round(parseCpu, 2),
      fastCpuMs: round(fastCpu, 2),
      deepCpuMs: round(deepCpu, 2),
      cpuRatio: parseCpu > 0 ? round(fastCpu / parseCpu, 2) : Number.NaN,
      endToEndMs: round(subject.endToEndMs, 1),
      fetchMs: round(subject.fetchMs, 1),
      tools: subject.report.tools.length,
      counts,
      deepCounts: subject.deepReport.counts,
      deepDismissed: subject.deepReport.findings.filter((finding) => finding.consensus === 'dismiss').length,
      score: subject.report.score,
      grade: subject.report.grade,
      problems: subject.report.problems.length,
    };
  });

  console.log(
    '\n' +
      formatTable(
        ['package', 'files', 'KB', 'parse ms', 'fast ms', 'ratio', 'cpu ratio', 'deep ms', 'e2e ms', 'fetch ms', 'tools', 'C', 'H', 'M', 'L', 'I', 'grade'],
        rows.map((row) => [
          row.package,
          row.files,
          row.kb,
          row.parseMs,
          row.fastMs,
          row.ratio,
          row.cpuRatio,
          row.deepMs,
          row.endToEndMs,
          row.fetchMs,
          row.tools,
          ...SEVERITIES.map((severity) => row.counts[severity] ?? 0),
          row.grade,
        ]),
      ),
  );

  const totalFiles = subjects.reduce((sum, subject) => sum + subject.files, 0);
  const totalBytes = subjects.reduce((sum, subject) => sum + subject.bytes, 0);
  const sumOf = (key) => rows.reduce((sum, row) => sum + row[key], 0);
  const totals = {
    packages: subjects.length,
    files: totalFiles,
    mib: round(totalBytes / 1024 / 1024, 2),
    parse: { ...throughput(sumOf('parseMs'), totalFiles, totalBytes), cpuMs: round(sumOf('parseCpuMs')) },
    fast: { ...throughput(sumOf('fastMs'), totalFiles, totalBytes), cpuMs: round(sumOf('fastCpuMs')) },
    deep: { ...throughput(sumOf('deepMs'), totalFiles, totalBytes), cpuMs: round(sumOf('deepCpuMs')) },
    endToEndP50Ms: round(median(endToEnd), 1),
    endToEndP95Ms: round(percentile(endToEnd, 95), 1),
    endToEndMaxMs: round(Math.max(...endToEnd), 1),
    endToEndFetchP50Ms: round(median(rows.map((row) => row.fetchMs).filter(Number.isFinite)), 1),
    inProcessPeakRssKiB: process.resourceUsage().maxRSS,
    findings: Object.fromEntries(SEVERITIES.map((severity) => [severity, rows.reduce((sum, row) => sum + (row.counts[severity] ?? 0), 0)])),
    benchMs: round(benchMs),
  };
  totals.ratio = totals.parse.ms > 0 ? round(totals.fast.ms / totals.parse.ms, 2) : Number.NaN;
  totals.deepRatio = totals.parse.ms > 0 ? round(totals.deep.ms / totals.parse.ms, 2) : Number.NaN;
  totals.cpuRatio = totals.parse.cpuMs > 0 ? round(totals.fast.cpuMs / totals.parse.cpuMs, 2) : Number.NaN;
  totals.deepCpuRatio = totals.parse.cpuMs > 0 ? round(totals.deep.cpuMs / totals.parse.cpuMs, 2) : Number.NaN;
  totals.loadAverage = { before: round(loadBefore, 2), after: round(loadAfter, 2), cpus: os.cpus().length };

  console.log(`\n${totals.packages} packages, ${totals.files} files, ${totals.mib} MiB of source (median of ${reps} after a warm-up)`);
  console.log(
    formatTable(
      ['pass', 'wall ms', 'files/s', 'MiB/s', 'x parse-only', 'cpu ms', 'x parse-only (cpu)'],
      [
        ['parse-only', totals.parse.ms, totals.parse.filesPerSecond, totals.parse.mibPerSecond, 1, totals.parse.cpuMs, 1],
        ['fast scan', totals.fast.ms, totals.fast.filesPerSecond, totals.fast.mibPerSecond, totals.ratio, totals.fast.cpuMs, totals.cpuRatio],
        ['deep scan', totals.deep.ms, totals.deep.filesPerSecond, totals.deep.mibPerSecond, totals.deepRatio, totals.deep.cpuMs, totals.deepCpuRatio],
      ],
    ),
  );
  console.log(
    `findings (fast): ${SEVERITIES.map((severity) => `${severity} ${totals.findings[severity]}`).join(', ')}`,
  );

  if (Math.max(loadBefore, loadAfter) > os.cpus().length) {
    console.log(
      `note: the machine was busy (1-min load ${round(loadBefore, 1)} → ${round(loadAfter, 1)} on ${os.cpus().length} CPUs): ` +
        'wall times include waiting for a core; the CPU-time columns are the steadier comparison.',
    );
  }
  console.log(
    `single package end-to-end (scanInputs, warm tarball cache): p50 ${totals.endToEndP50Ms} ms, p95 ${totals.endToEndP95Ms} ms, ` +
      `max ${totals.endToEndMaxMs} ms; fetch stage (packument request + unpack) p50 ${totals.endToEndFetchP50Ms} ms`,
  );
  console.log(`peak RSS of this in-process bench: ${round(totals.inProcessPeakRssKiB / 1024)} MiB (all passes, all packages)`);

  if (userRun) {
    console.log(`\nsvc scan with ${userRun.targets} targets in one process (median of ${reps} after a warm-up; ${userRun.files} files, ${userRun.mib} MiB analysed)`);
    console.log(
      formatTable(
        ['process', 'wall ms', 'cpu ms', 'peak RSS MiB', 'x bare (wall)', 'x bare (cpu)', 'x materialise (wall)'],
        userRun.rows.map((row) => [row.name, row.wallMs, row.cpuMs, row.peakRssMiB, row.overBare, row.cpuOverBare, row.overMaterialise]),
      ),
    );
  }

  const cli = userRun?.rows.find((row) => row.name === 'svc scan');
  const verdicts = checkTargets({
    cliOverBare: cli?.overBare ?? Number.NaN,
    rawTransfer: core.RAW_TRANSFER ?? false,
    peakRssMiB: cli?.peakRssMiB ?? Number.NaN,
    endToEndP95Ms: totals.endToEndP95Ms,
  });
  console.log(
    '\n' +
      formatTable(
        ['target', 'measured', 'goal', 'result'],
        verdicts.map((verdict) => [verdict.name, verdict.value, verdict.target, verdict.pass ? 'PASS' : 'FAIL']),
      ),
  );

  const environment = {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    svc: core.SVC_VERSION,
    rawTransfer: core.RAW_TRANSFER ?? false,
  };
  await mkdir(path.dirname(resultPath), { recursive: true });
  await writeFile(
    resultPath,
    JSON.stringify(
      { at: new Date().toISOString(), environment, reps, totals, userRun, targets: verdicts, packages: rows, skipped: failed },
      null,
      2,
    ),
  );
  console.log(`\nresults written to ${path.relative(process.cwd(), resultPath)}`);

  if (args.check && verdicts.some((verdict) => !verdict.pass)) process.exitCode = 1;
}

/**
 * The CLI as a user runs it on a config with many servers: every package a target of one `svc scan` call, JSON report
 * to a file. Against it, the floors over the same analysed files: a bare parse that reads only `errors`, and a parse
 * that also builds the JS AST. Wall time from spawn to exit; CPU time and peak RSS reported by each process itself.
 */
async function measureUserRun(subjects, reps) {
  const work = await mkdtemp(path.join(os.tmpdir(), 'svc-bench-'));
  try {
    const list = path.join(work, 'files.txt');
    const analysed = subjects.flatMap((subject) =>
      subject.groups.filter((group) => group.analyzer.id === 'javascript').flatMap((group) => group.files),
    );
    await writeFile(list, analysed.map((file) => file.absPath).join('\n'));
    const targets = subjects.map((subject) => subject.entry.root);
    const cli = path.join(repoRoot, 'packages/cli/bin/svc.js');
    const commands = {
      'bare parse': [path.join(benchDir, 'parse-floor.mjs'), list],
      'parse + materialise': [path.join(benchDir, 'parse-floor.mjs'), list, '--materialise'],
      'svc scan': [cli, 'scan', '--mode', 'fast', '--format', 'json', '--quiet', '--fail-on', 'critical', '--output', path.join(work, 'run.json'), ...targets],
      // The same on one thread: what the worker pool buys, and the scan's own CPU without the workers' start-up.
      'svc scan --jobs 1': [cli, 'scan', '--jobs', '1', '--mode', 'fast', '--format', 'json', '--quiet', '--fail-on', 'critical', '--output', path.join(work, 'run-1.json'), ...targets],
    };
    const samples = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
    for (let round = 0; round <= reps; round++) {
      for (const [name, command] of Object.entries(commands)) {
        const sample = await measureProcess(command, path.join(work, 'usage.json'));
        if (round > 0) samples[name].push(sample);
      }
      console.error(`svc scan round ${round === 0 ? 'warm-up' : `${round}/${reps}`} done`);
    }
    const run = JSON.parse(await readFile(path.join(work, 'run.json'), 'utf8'));
    if (run.errors.length > 0) console.error(`warning: svc scan failed ${run.errors.length} targets: ${run.errors[0].message}`);
    const summary = (name) => {
      const of = (key) => median(samples[name].map((sample) => sample[key]));
      return { name, wallMs: round(of('wallMs')), cpuMs: round(of('cpuMs')), peakRssMiB: round(Math.max(...samples[name].map((sample) => sample.maxRssKiB)) / 1024) };
    };
    const rows = Object.keys(commands).map(summary);
    const [bare, materialise] = rows;
    for (const row of rows) {
      row.overBare = round(row.wallMs / bare.wallMs, 2);
      row.cpuOverBare = round(row.cpuMs / bare.cpuMs, 2);
      row.overMaterialise = round(row.wallMs / materialise.wallMs, 2);
    }
    return {
      targets: targets.length,
      reportedTargets: run.reports.length,
      files: analysed.length,
      mib: round(analysed.reduce((sum, file) => sum + file.size, 0) / 1024 / 1024, 2),
      rows,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Runs one command under the usage probe and returns its wall time, CPU time and peak RSS. */
async function measureProcess(command, usageFile) {
  const start = performance.now();
  const code = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', path.join(benchDir, 'usage-probe.mjs'), ...command], {
      env: { ...process.env, SVC_BENCH_USAGE: usageFile },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', resolve);
  });
  const wallMs = performance.now() - start;
  // svc exits 1 when a finding reaches --fail-on; 2 is a usage or runtime error.
  if (code !== 0 && code !== 1) throw new Error(`${path.basename(command[0])} exited with ${code}`);
  const usage = JSON.parse(await readFile(usageFile, 'utf8'));
  return { wallMs, cpuMs: (usage.userCpuUs + usage.systemCpuUs) / 1000, maxRssKiB: usage.maxRssKiB };
}

/** The in-process baseline: read each selected file from disk and parse it into the JS AST, nothing else. */
async function parseOnly(subject) {
  let parsed = 0;
  for (const { analyzer, files } of subject.groups) {
    const withText = [];
    for (const file of files) withText.push({ ...file, text: await readFile(file.absPath, 'utf8') });
    parsed += await analyzer.parseOnly(withText);
  }
  return parsed;
}

function oneLine(text, max) {
  const flat = String(text).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
