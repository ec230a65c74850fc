#!/usr/bin/env node
// The HTTP benchmark of svcd: autocannon against the built daemon, each route next to a bare Hono route in the same run.
// Usage: node bench/api-bench.mjs [--check] [--json] [--warmup N] [--requests N] [--connections N] [--high-connections N]
//        [--only ROUTE-ID] [--cpu-prof DIR] [--svcd PATH] [--keep] [--markdown]
// See bench/README.md ("API benchmark") for what is measured and how.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { formatTable, round } from './measure.mjs';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.dirname(benchDir);
const cacheDir = path.join(repoRoot, '.bench-cache');
const svcdBin = path.join(repoRoot, 'packages/daemon/bin/svcd.js');
const fixture = path.join(repoRoot, 'fixtures/servers/clean-files-ts');

export const TARGETS = {
  /** The authenticated read may cost at most twice the bare route: ≥ 50 % of its requests/s. */
  readOverBareMin: 0.5,
  readP99MsMax: 10,
  /**
   * At the high connection count, steady-state p99 over p50. With every connection waiting for one answer at a time, a
   * FIFO server answers each request after about one round of the others, so the tail stays close to the median; a
   * starved connection or a stalled loop shows up as a long tail.
   */
  steadyTailOverMedianMax: 3,
};

/** The edge rule (spec 8.3): requests per Authorization value, and per user across credentials, per 5 minutes. */
export const EDGE_LIMIT = 8000;
/** Requests outside the load runs that count toward a measured user's budget (minting the key, status checks). */
const SETUP_REQUESTS = 10;

// ---------------------------------------------------------------------------------------------------------------
// Pure helpers (tested in api-bench.test.ts)

/** Nearest-rank percentile of an ascending array; NaN when empty. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** p50/p90/p99/max/mean of latencies in ms, rounded to 0.01 ms. */
export function latencySummary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.length === 0 ? Number.NaN : sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return {
    count: sorted.length,
    p50: round(percentile(sorted, 50), 2),
    p90: round(percentile(sorted, 90), 2),
    p99: round(percentile(sorted, 99), 2),
    max: round(sorted.at(-1) ?? Number.NaN, 2),
    mean: round(mean, 2),
  };
}

/**
 * How evenly the connections were served. Each connection's first answer is kept apart: it includes the wait for the
 * server to accept the socket, which a saturated Node server does late for some of a burst of new connections (see
 * bench/README.md). The rest is steady-state keep-alive traffic, where queuing is fair when every connection's median
 * latency is close to the others' (a starved socket shows a spread well above 1).
 */
export function connectionSpread(perConnection) {
  const counts = perConnection.map((latencies) => latencies.length);
  const steady = perConnection.map((latencies) => latencies.slice(1));
  const medians = steady.filter((latencies) => latencies.length > 0).map((latencies) => percentile([...latencies].sort((a, b) => a - b), 50));
  const fastest = medians.length === 0 ? Number.NaN : Math.min(...medians);
  const slowest = medians.length === 0 ? Number.NaN : Math.max(...medians);
  return {
    connections: perConnection.length,
    minRequests: counts.length === 0 ? 0 : Math.min(...counts),
    maxRequests: counts.length === 0 ? 0 : Math.max(...counts),
    firstAnswer: latencySummary(perConnection.filter((latencies) => latencies.length > 0).map((latencies) => latencies[0])),
    steady: latencySummary(steady.flat()),
    fastestP50: round(fastest, 2),
    slowestP50: round(slowest, 2),
    p50Spread: fastest > 0 ? round(slowest / fastest, 2) : Number.NaN,
  };
}

/** `{ '202': 30, '429': 5970 }` → `202×30 429×5970`, keys in ascending order (numerically for status codes). */
export function formatStatuses(statuses) {
  return Object.entries(statuses)
    .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
}

/** Refuses a plan that would run a credential into the edge rule (the run would then measure 429s, not the route). */
export function checkBudget({ warmup, requests }) {
  const used = warmup + requests + SETUP_REQUESTS;
  if (used > EDGE_LIMIT) {
    throw new Error(`--warmup ${warmup} + --requests ${requests} (+${SETUP_REQUESTS} setup) exceeds the edge rule of ${EDGE_LIMIT} requests per credential per 5 minutes`);
  }
}

/**
 * The verdicts of one run. `phases` are the measured phases (see PHASES); reads at the base connection count are
 * compared with the bare GET at the same count; at the high count nothing may fail and every connection must be
 * served alike.
 */
export function apiVerdicts(phases, { connections, highConnections }) {
  const find = (id, conns) => phases.find((phase) => phase.id === id && phase.connections === conns);
  const read = find('read', connections);
  const bare = find('bare-get', connections);
  const high = phases.filter((phase) => phase.connections === highConnections);
  const ratio = read && bare ? read.requestsPerSecond / bare.requestsPerSecond : Number.NaN;
  // autocannon counts a timeout as an error too.
  const failures = high.reduce((sum, phase) => sum + phase.errors, 0);
  const unexpected = high.reduce((sum, phase) => sum + unexpectedStatuses(phase), 0);
  // The daemon's routes only: the bare route's millisecond latencies are mostly the load generator's own scheduling.
  const tail = Math.max(...high.filter((phase) => phase.kind !== 'bare').map((phase) => phase.fairness.steady.p99 / phase.fairness.steady.p50));
  const served = high.every((phase) => phase.fairness.minRequests > 0 && phase.fairness.maxRequests - phase.fairness.minRequests <= 1);
  return [
    {
      name: `read req/s vs bare GET (${connections} conns)`,
      value: round(ratio, 2),
      target: `≥ ${TARGETS.readOverBareMin}`,
      pass: ratio >= TARGETS.readOverBareMin,
    },
    {
      name: `read p99 ms (${connections} conns)`,
      value: read ? read.latency.p99 : Number.NaN,
      target: `< ${TARGETS.readP99MsMax}`,
      pass: read !== undefined && read.latency.p99 < TARGETS.readP99MsMax,
    },
    { name: `errors incl. timeouts (${highConnections} conns)`, value: failures, target: '= 0', pass: high.length > 0 && failures === 0 },
    { name: `unexpected statuses (${highConnections} conns)`, value: unexpected, target: '= 0', pass: high.length > 0 && unexpected === 0 },
    {
      name: `steady-state p99 / p50, worst svcd route (${highConnections} conns)`,
      value: round(tail, 2),
      target: `≤ ${TARGETS.steadyTailOverMedianMax}`,
      pass: high.length > 0 && served && tail <= TARGETS.steadyTailOverMedianMax,
    },
  ];
}

function unexpectedStatuses(phase) {
  return Object.entries(phase.statuses).reduce((sum, [status, count]) => (phase.expected.includes(Number(status)) ? sum : sum + count), 0);
}

/** The results of one run (the shape of `.bench-cache/api-last-run.json`) as Markdown for bench/README.md. */
export function formatApiMarkdown(run) {
  const cell = (value) => (typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '-') : String(value));
  const table = (headers, rows) =>
    [`| ${headers.join(' | ')} |`, `|${headers.map((_, index) => (index === 0 ? '---' : '---:')).join('|')}|`]
      .concat(rows.map((row) => `| ${row.map(cell).join(' | ')} |`))
      .join('\n');
  const { environment, load } = run;
  return [
    `Run of ${run.at.slice(0, 16).replace('T', ' ')} UTC: ${environment.node}, ${environment.platform}, ${environment.cpus} × ${environment.cpuModel}; ` +
      `1-min load ${load.before} → ${load.after}; ${run.plan.warmup} warm-up + ${run.plan.requests} measured requests per row.`,
    '',
    table(
      ['route', 'conns', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'statuses', 'errors', 'timeouts', '× bare', 'loop CPU µs/req'],
      run.phases.map((phase) => [
        phase.label,
        phase.connections,
        phase.requests,
        phase.requestsPerSecond,
        phase.latency.p50,
        phase.latency.p99,
        phase.latency.max,
        formatStatuses(phase.statuses),
        phase.errors,
        phase.timeouts,
        phase.vsBare ?? '',
        phase.serverCpuMicrosPerRequest ?? '-',
      ]),
    ),
    '',
    table(
      ['target', 'measured', 'goal', 'result'],
      run.targets.map((verdict) => [verdict.name, verdict.value, verdict.target, verdict.pass ? 'pass' : '**fail**']),
    ),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// The run

/**
 * One row of the table. `kind` says which server answers; daemon rows name the users they spend (fresh per phase,
 * so no phase inherits another's request counts). Submits warm up with their own user so the measured run starts
 * with a full per-minute scan burst and its accepted submissions (202) are in the measurement.
 */
const PHASES = [
  { id: 'bare-get', kind: 'bare', label: 'bare Hono GET /bare', method: 'GET', expected: [200] },
  { id: 'public-read', kind: 'daemon', label: 'GET /scan/{id} (public, no key)', method: 'GET', expected: [200], bare: 'bare-get' },
  { id: 'read', kind: 'daemon', label: 'GET /api/v1/scan/{id} (API key)', method: 'GET', expected: [200], bare: 'bare-get', users: 'same' },
  { id: 'bare-post', kind: 'bare', label: 'bare Hono POST /bare (JSON body)', method: 'POST', expected: [202] },
  { id: 'submit', kind: 'daemon', label: 'POST /api/v1/scan (API key)', method: 'POST', expected: [202, 429], bare: 'bare-post', users: 'separate' },
];

const BARE_SERVER = `
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
const app = new Hono();
app.get('/bare', (c) => c.json({ ok: true }));
app.post('/bare', async (c) => {
  const body = await c.req.json();
  return c.json({ ok: true, input: body.input }, 202);
});
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write('bare listening on http://127.0.0.1:' + info.port + '\\n');
});
process.on('SIGTERM', () => process.exit(0));
`;

async function main() {
  const { values: args } = parseArgs({
    options: {
      check: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      markdown: { type: 'boolean', default: false },
      warmup: { type: 'string', default: '1000' },
      requests: { type: 'string', default: '6000' },
      connections: { type: 'string', default: '10' },
      'high-connections': { type: 'string', default: '100' },
      only: { type: 'string' },
      'cpu-prof': { type: 'string' },
      svcd: { type: 'string' },
      keep: { type: 'boolean', default: false },
    },
  });
  const resultPath = path.join(cacheDir, 'api-last-run.json');
  // --markdown renders the last run for bench/README.md and measures nothing.
  if (args.markdown) {
    console.log(formatApiMarkdown(JSON.parse(await readFile(resultPath, 'utf8'))));
    return;
  }
  const plan = {
    warmup: positiveInteger(args.warmup, '--warmup'),
    requests: positiveInteger(args.requests, '--requests'),
    connections: positiveInteger(args.connections, '--connections'),
    highConnections: positiveInteger(args['high-connections'], '--high-connections'),
  };
  checkBudget(plan);
  const connectionCounts = [...new Set([plan.connections, plan.highConnections])];
  // --only ID (bare-get, public-read, read, bare-post, submit): one route, e.g. while profiling it.
  const selected = PHASES.filter((phase) => args.only === undefined || phase.id === args.only);
  if (selected.length === 0) {
    console.error(`--only must be one of ${PHASES.map((phase) => phase.id).join(', ')}`);
    process.exit(2);
  }
  if (!existsSync(path.join(repoRoot, 'packages/daemon/dist/main.js'))) {
    console.error('the daemon is not built: run `npm run build` (or `npm run bench:api`, which builds first)');
    process.exit(2);
  }
  const autocannon = createRequire(import.meta.url)('autocannon');
  // --svcd PATH: another build of the daemon (an A/B experiment on a copy of the repository).
  const bin = args.svcd === undefined ? svcdBin : path.resolve(args.svcd);

  const temp = await mkdtemp(path.join(os.tmpdir(), 'svc-api-bench-'));
  const children = [];
  const log = (message) => console.error(message);
  const loadBefore = os.loadavg()[0];
  try {
    const roots = path.join(temp, 'roots');
    const target = path.join(roots, 'clean-files-ts');
    await mkdir(roots);
    await cp(fixture, target, { recursive: true });
    const dataDir = path.join(temp, 'data');
    const env = daemonEnvironment({ dataDir, roots });

    // One user per measured credential (the edge rule counts per user across keys as well), plus the setup user.
    const users = ['setup'];
    for (const connections of connectionCounts) {
      for (const phase of selected) {
        if (phase.users === 'same') users.push(`${phase.id}-${connections}`);
        if (phase.users === 'separate') users.push(`${phase.id}-${connections}`, `${phase.id}-${connections}-warmup`);
      }
    }
    log(`creating ${users.length} business-tier users with \`svcd admin\``);
    const tokens = await createUsers(users, env, bin);

    // --cpu-prof DIR: V8 writes the daemon's CPU profile there when it exits (after SIGTERM, at the end of the run).
    const profile = args['cpu-prof'] === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', path.resolve(args['cpu-prof'])];
    const daemon = await startServer('svcd', [...profile, bin, '--port', '0'], { env, cwd: temp, logDir: temp });
    children.push(daemon);
    const bare = await startServer('bare', ['--input-type=module', '-e', BARE_SERVER], { env: process.env, cwd: repoRoot, logDir: temp });
    children.push(bare);
    log(`svcd on ${daemon.origin} (pid ${daemon.child.pid}), bare Hono on ${bare.origin} (pid ${bare.child.pid})`);

    const keys = new Map();
    for (const user of users) keys.set(user, await mintKey(daemon.origin, tokens.get(user), `bench ${user}`));

    // The scan every read fetches: the clean fixture, public, completed (its stored result is part of the answer).
    const scanId = await submitAndWait(daemon.origin, keys.get('setup'), target);
    log(`setup scan ${scanId} completed`);
    const database = openDatabase(path.join(dataDir, 'svc.db'));

    const submitBody = JSON.stringify({ input: target, mode: 'fast', visibility: 'public' });
    const phases = [];
    for (const connections of connectionCounts) {
      for (const phase of selected) {
        const server = phase.kind === 'bare' ? bare : daemon;
        const request = requestOf(phase, server.origin, scanId, submitBody, connectionCounts.indexOf(connections) + 1);
        const measuredUser = `${phase.id}-${connections}`;
        const warmupUser = phase.users === 'separate' ? `${measuredUser}-warmup` : measuredUser;
        const withKey = (user) => (phase.users === undefined ? request : { ...request, headers: { ...request.headers, authorization: `Bearer ${keys.get(user)}` } });

        log(`${phase.label}, ${connections} connections: warm-up ${plan.warmup}, then ${plan.requests}`);
        await load(autocannon, { ...withKey(warmupUser), connections, amount: plan.warmup });
        const result = await load(autocannon, { ...withKey(measuredUser), connections, amount: plan.requests }, server.child.pid);
        phases.push({ ...result, id: phase.id, label: phase.label, connections, expected: phase.expected, kind: phase.kind, bare: phase.bare });

        if (phase.id === 'submit') {
          // The accepted submissions are real scans on the worker pool; the next phase starts on an idle daemon.
          const drain = await waitForIdle(database);
          phases.at(-1).drain = drain;
          log(`  ${result.statuses['202'] ?? 0} submissions accepted (more in the warm-up); the pool finished the queue ${round(drain.ms / 1000, 1)} s after the run`);
        }
      }
    }
    const scans = Object.fromEntries(database.prepare('SELECT status, count(*) AS n FROM scans GROUP BY status').all().map((row) => [row.status, row.n]));
    // A scan that fails under load is a finding of its own; the reasons go into the results.
    const scanErrors = database.prepare("SELECT error, count(*) AS n FROM scans WHERE status = 'failed' GROUP BY error ORDER BY n DESC").all();
    database.close();

    for (const phase of phases) {
      const bareRow = phases.find((row) => row.id === phase.bare && row.connections === phase.connections);
      if (bareRow) phase.vsBare = round(phase.requestsPerSecond / bareRow.requestsPerSecond, 2);
    }
    const loadAfter = os.loadavg()[0];
    const targets = apiVerdicts(phases, plan);
    const run = {
      at: new Date().toISOString(),
      environment: {
        node: process.version,
        platform: `${process.platform} ${process.arch}`,
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
      },
      load: { before: round(loadBefore, 2), after: round(loadAfter, 2) },
      plan,
      phases,
      scans,
      scanErrors,
      targets,
    };
    report(run);
    await mkdir(cacheDir, { recursive: true });
    await writeFile(resultPath, JSON.stringify(run, null, 2));
    console.log(`\nresults written to ${path.relative(process.cwd(), resultPath)}`);
    if (args.json) console.log(JSON.stringify(run, null, 2));
    if (args.check && targets.some((verdict) => !verdict.pass)) process.exitCode = 1;
  } finally {
    for (const { child } of children.reverse()) await stop(child);
    // --keep leaves the data directory and the servers' logs (svcd.err: one JSON line per request) for a post-mortem.
    if (args.keep) console.error(`kept ${temp}`);
    else await rm(temp, { recursive: true, force: true });
  }
}

function report(run) {
  const { phases, plan } = run;
  console.log(
    `\n${plan.warmup} warm-up + ${plan.requests} measured requests per row; latencies of every answer (all statuses); errors include timeouts (10 s); ` +
      `req/s = answers / wall time of the measured run; 1-min load ${run.load.before} → ${run.load.after} on ${run.environment.cpus} CPUs`,
  );
  console.log(
    formatTable(
      ['route', 'conns', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'statuses', 'errors', 'timeouts', '× bare', 'loop CPU µs/req'],
      phases.map((phase) => [
        phase.label,
        phase.connections,
        phase.requests,
        phase.requestsPerSecond,
        phase.latency.p50,
        phase.latency.p99,
        phase.latency.max,
        formatStatuses(phase.statuses),
        phase.errors,
        phase.timeouts,
        phase.vsBare ?? '',
        phase.serverCpuMicrosPerRequest ?? Number.NaN,
      ]),
    ),
  );
  console.log(`scans in the database at the end: ${formatStatuses(run.scans)}`);
  for (const { error, n } of run.scanErrors) console.log(`  failed ×${n}: ${String(error).slice(0, 300)}`);
  for (const phase of phases.filter((row) => row.id === 'submit')) {
    const parts = Object.entries(phase.byStatus).map(([status, summary]) => `${status}: ${summary.count} answers, p50 ${summary.p50} ms, p99 ${summary.p99} ms`);
    console.log(`submit at ${phase.connections} connections by status: ${parts.join('; ')}`);
  }
  console.log(`\nper-connection service at ${plan.highConnections} connections (first answer of each connection apart from the steady state):`);
  console.log(
    formatTable(
      ['route', 'req/conn', 'first answer p50 ms', 'first answer max ms', 'steady p50 ms', 'steady p99 ms', 'steady max ms', 'conn p50 min–max ms', 'spread'],
      phases
        .filter((phase) => phase.connections === plan.highConnections)
        .map((phase) => [
          phase.label,
          phase.fairness.minRequests === phase.fairness.maxRequests ? `${phase.fairness.minRequests}` : `${phase.fairness.minRequests}–${phase.fairness.maxRequests}`,
          phase.fairness.firstAnswer.p50,
          phase.fairness.firstAnswer.max,
          phase.fairness.steady.p50,
          phase.fairness.steady.p99,
          phase.fairness.steady.max,
          `${phase.fairness.fastestP50}–${phase.fairness.slowestP50}`,
          phase.fairness.p50Spread,
        ]),
    ),
  );
  const admission = Math.max(...phases.filter((phase) => phase.kind !== 'bare').map((phase) => phase.fairness.firstAnswer.max));
  if (admission > 1000) {
    console.log(
      `note: a new connection waited up to ${round(admission / 1000, 1)} s for its first answer. libuv accepts one connection per event-loop ` +
        'iteration (libuv#3696), so a burst of new connections to a saturated daemon is admitted one loop turn at a time; ' +
        'connections already open are served in turn meanwhile (the steady-state columns).',
    );
  }
  const loadgenBusy = Math.max(...phases.map((phase) => phase.loadgenCpuShare));
  if (loadgenBusy > 0.8) {
    console.log(`note: the load generator used up to ${Math.round(loadgenBusy * 100)} % of a CPU; on ${run.environment.cpus} CPUs it competes with the server it measures.`);
  }
  if (Math.max(run.load.before, run.load.after) > run.environment.cpus) {
    console.log(`note: the machine was busy (1-min load ${run.load.before} → ${run.load.after} on ${run.environment.cpus} CPUs).`);
  }
  console.log(
    '\n' +
      formatTable(
        ['target', 'measured', 'goal', 'result'],
        run.targets.map((verdict) => [verdict.name, verdict.value, verdict.target, verdict.pass ? 'PASS' : 'FAIL']),
      ),
  );
}

function requestOf(phase, origin, scanId, submitBody, clientNumber) {
  const url =
    phase.kind === 'bare' ? `${origin}/bare` : phase.id === 'public-read' ? `${origin}/scan/${scanId}` : phase.id === 'read' ? `${origin}/api/v1/scan/${scanId}` : `${origin}/api/v1/scan`;
  // Keyless requests count per client address (8000 per 5 minutes), like a credential: each keyless row comes from
  // an address of its own (TEST-NET-2, via X-Forwarded-For from the trusted load generator) so none inherits another's count.
  if (phase.id === 'public-read') return { url, method: 'GET', headers: { 'x-forwarded-for': `198.51.100.${clientNumber}` } };
  if (phase.method === 'GET') return { url, method: 'GET', headers: {} };
  // The bare POST gets the same body, so both sides parse the same JSON.
  return { url, method: 'POST', headers: { 'content-type': 'application/json' }, body: submitBody };
}

/**
 * One autocannon run of exactly `amount` requests. Latencies are taken from autocannon's per-response events (float
 * ms, every status) rather than its histogram, which keeps whole milliseconds and only 2xx answers by default.
 */
async function load(autocannon, options, serverPid) {
  const perConnection = new Map();
  const byStatus = new Map();
  const latencies = [];
  const answeredAt = [];
  let bytes = 0;
  const cpuBefore = serverPid === undefined ? undefined : processCpuMs(serverPid);
  const ownCpuBefore = process.cpuUsage();
  const started = performance.now();
  let lastAnswer = started;
  const clients = [];
  const instance = autocannon({ ...options, timeout: 10, setupClient: (client) => clients.push(client) });
  // The clients and their sockets exist once autocannon() returns; 'connect' comes later. A connect slower than the
  // server's answers is the kernel's SYN retransmission (1 s, 3 s, ...), not the server's queue.
  const connectMs = [];
  for (const client of clients) client.conn?.once('connect', () => connectMs.push(performance.now() - started));
  instance.on('response', (client, statusCode, resBytes, responseTime) => {
    lastAnswer = performance.now();
    latencies.push(responseTime);
    answeredAt.push(lastAnswer - started);
    bytes += resBytes;
    let mine = perConnection.get(client);
    if (mine === undefined) perConnection.set(client, (mine = []));
    mine.push(responseTime);
    let status = byStatus.get(statusCode);
    if (status === undefined) byStatus.set(statusCode, (status = []));
    status.push(responseTime);
  });
  const result = await instance;
  // autocannon reports only on its next 1 s sampling tick after the last answer, so its own duration (and the
  // per-second request samples) would round every run up to whole seconds: the run ends at the last answer.
  const wallMs = lastAnswer - started;
  const ownCpu = process.cpuUsage(ownCpuBefore);
  const cpuAfter = serverPid === undefined ? undefined : processCpuMs(serverPid);
  const serverCpuMs = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
  // Connections that never got an answer still count for fairness.
  const connections = [...perConnection.values()];
  while (connections.length < options.connections) connections.push([]);
  return {
    requests: latencies.length,
    wallMs: round(wallMs),
    requestsPerSecond: round(latencies.length / (wallMs / 1000)),
    latency: latencySummary(latencies),
    autocannon: { p50: result.latency.p50, p99: result.latency.p99, requestsMean: result.requests.mean },
    statuses: Object.fromEntries([...byStatus].map(([status, values]) => [status, values.length])),
    byStatus: Object.fromEntries([...byStatus].map(([status, values]) => [status, latencySummary(values)])),
    bytesPerResponse: latencies.length === 0 ? 0 : Math.round(bytes / latencies.length),
    errors: result.errors,
    timeouts: result.timeouts,
    fairness: connectionSpread(connections),
    connect: latencySummary(connectMs),
    // When the worst answers came (ms after the run started): a burst at one instant is a stall, not queuing.
    slowest: latencies
      .map((ms, index) => ({ ms: round(ms, 1), answeredAtMs: round(answeredAt[index] ?? Number.NaN) }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 5),
    serverCpuMicrosPerRequest: serverCpuMs === undefined || latencies.length === 0 ? undefined : round((serverCpuMs * 1000) / latencies.length),
    loadgenCpuShare: round((ownCpu.user + ownCpu.system) / 1000 / wallMs, 2),
  };
}

/**
 * user + system CPU of a process's main thread from /proc (Linux); undefined elsewhere. The main thread runs the event
 * loop, which every request goes through; the daemon's scan worker threads (busy after accepted submissions) are left
 * out, and so are V8's helper threads (parallel GC) in both servers alike.
 */
let clockTicks;
function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; the numeric fields follow its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return undefined;
  }
}

/** The daemon's own environment: nothing inherited from SVC_* of the caller, mail to the outbox, one scan worker. */
function daemonEnvironment({ dataDir, roots }) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SVC_')));
  // The load generator is a trusted proxy so the keyless rows can name a client address of their own (see requestOf).
  return { ...env, SVC_DATA_DIR: dataDir, SVC_SCAN_ROOTS: roots, SVC_SCAN_WORKERS: '1', SVC_HOST: '127.0.0.1', SVC_TRUSTED_PROXIES: '127.0.0.1' };
}

const execFileAsync = promisify(execFile);

async function svcdAdmin(bin, args, env) {
  const { stdout } = await execFileAsync(process.execPath, [bin, 'admin', ...args], { env, encoding: 'utf8' });
  return stdout.trim();
}

/** Creates each user on the business tier and returns their session JWTs. The first run also migrates the database. */
async function createUsers(names, env, bin) {
  const email = (name) => `bench-${name}@example.com`;
  await svcdAdmin(bin, ['create-user', email(names[0]), '--tier', 'business'], env);
  const rest = names.slice(1);
  // A few at a time: each is a node process, and SQLite serialises their writes anyway (busy_timeout).
  for (let index = 0; index < rest.length; index += 4) {
    await Promise.all(rest.slice(index, index + 4).map((name) => svcdAdmin(bin, ['create-user', email(name), '--tier', 'business'], env)));
  }
  const tokens = new Map();
  for (let index = 0; index < names.length; index += 4) {
    const batch = names.slice(index, index + 4);
    const issued = await Promise.all(batch.map((name) => svcdAdmin(bin, ['token', email(name)], env)));
    batch.forEach((name, position) => tokens.set(name, issued[position]));
  }
  return tokens;
}

/**
 * Starts a server whose stdout announces `listening on http://127.0.0.1:PORT`. Its output goes to files, not
 * pipes: the daemon logs a line per request, and draining a pipe would put that work on the load generator's loop.
 */
async function startServer(name, args, { env, cwd, logDir }) {
  const outFile = path.join(logDir, `${name}.out`);
  const errFile = path.join(logDir, `${name}.err`);
  const out = openSync(outFile, 'w');
  const err = openSync(errFile, 'w');
  const child = spawn(process.execPath, args, { env, cwd, stdio: ['ignore', out, err] });
  closeSync(out);
  closeSync(err);
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(readFileSync(outFile, 'utf8'));
    if (match?.[1] !== undefined) return { child, origin: match[1] };
    if (exited) break;
    await sleep(50);
  }
  child.kill('SIGKILL');
  throw new Error(`${name} did not start:\n${readFileSync(outFile, 'utf8')}${readFileSync(errFile, 'utf8').slice(-4000)}`);
}

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function call(origin, method, route, token, body) {
  const response = await fetch(`${origin}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
  return JSON.parse(text);
}

async function mintKey(origin, sessionToken, label) {
  const created = await call(origin, 'POST', '/keys', sessionToken, { label });
  return created.data.key;
}

async function submitAndWait(origin, key, input) {
  const scan = await call(origin, 'POST', '/api/v1/scan', key, { input, mode: 'fast', visibility: 'public' });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const current = await call(origin, 'GET', `/api/v1/scan/${scan.id}`, key);
    if (current.status === 'completed') return scan.id;
    if (current.status === 'failed' || current.status === 'cancelled') throw new Error(`the setup scan ${current.status}: ${JSON.stringify(current)}`);
    await sleep(200);
  }
  throw new Error('the setup scan did not complete within 60 s');
}

/** A read-only look at the daemon's queue: no HTTP request, so no credential's budget is spent on waiting. */
function openDatabase(file) {
  const Database = createRequire(path.join(repoRoot, 'packages/daemon/package.json'))('better-sqlite3');
  return new Database(file, { readonly: true, fileMustExist: true });
}

async function waitForIdle(database) {
  const started = performance.now();
  const pending = database.prepare("SELECT count(*) AS n FROM scans WHERE status IN ('queued', 'running')");
  const deadline = Date.now() + 300_000;
  while (pending.get().n > 0) {
    if (Date.now() > deadline) throw new Error('the scans queued by the submit phase did not finish within 5 minutes');
    await sleep(200);
  }
  return { ms: round(performance.now() - started) };
}

function positiveInteger(text, name) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} must be a whole number ≥ 1, got "${text}"`);
    process.exit(2);
  }
  return value;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await main();
}
