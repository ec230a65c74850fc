import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { REPORT_SCHEMA_VERSION, scoreFindings, SVC_VERSION } from '@svc/core';
import type { Finding, ScanEvent, ScanReport, ScanRun, Stage, TargetFailure, TargetKind } from '@svc/core';
import { ApiError, type ApiClient } from '../client/api-client.js';
import { CliError } from '../client/run.js';
import { connect, findCredential } from '../credentials/connect.js';
import { resolveServer } from '../credentials/profiles.js';
import { EXIT } from '../exit-codes.js';
import type { CommandIo } from '../terminal.js';
import type { Progress } from '../ui/progress.js';
import { startProgress } from '../ui/progress.js';
import { checkReportFiles, printRun } from './scan.js';
import type { ScanCommandOptions } from './scan.js';

// `svc scan --remote`: the daemon scans, the terminal shows the same live view and prints the same reports and exit
// codes as a local scan. The stream's events (docs/daemon.md "Scans") are translated into the engine's ScanEvents.

export interface RemoteScanOptions extends Pick<ScanCommandOptions, 'format' | 'output' | 'report' | 'mode' | 'failOn' | 'failOnPartial' | 'color' | 'quiet'> {
  server?: string;
}

/** How the scans are submitted and read: an API key uses /api/v1/*, a session the web routes. */
export type RemoteCredential = 'api-key' | 'session';

/** The scan record as the daemon shows it (docs/daemon.md "Scans"); only what the CLI reads. */
interface ScanView {
  id: string;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  input: string;
  mode: 'fast' | 'deep';
  visibility: 'public' | 'private';
  target: { source: string | null; package: string | null; version: string | null };
  summary: { score: number; grade: string } | null;
  error: string | null;
  started_at: string | null;
  finished_at: string | null;
}

type StreamProgress = { target: string; stage: Stage; done?: number; total?: number };

/**
 * Picks the credential: an API key (SVC_API_KEY or stored for the server) when there is one, else the session;
 * neither is "not signed in" (exit 2).
 */
export async function remoteScan(targets: string[], options: RemoteScanOptions, io: CommandIo): Promise<number> {
  const { server } = await resolveServer(io, options);
  const key = await findCredential(io, server, 'api-key');
  const credential: RemoteCredential = key === undefined ? 'session' : 'api-key';
  const client = await connect(io, options, credential);
  return remoteScanCommand(targets, options, io, client, credential);
}

/**
 * A relative path means something on this machine; the daemon only takes absolute paths inside its scan roots, so
 * an existing local path is sent absolute (right for a local svcd; a remote one refuses it with its own message).
 */
function toRemoteInput(target: string): string {
  if (isAbsolute(target) || !(target.startsWith('.') || existsSync(target))) return target;
  return resolve(target);
}

export async function remoteScanCommand(
  targets: string[],
  options: RemoteScanOptions,
  io: CommandIo,
  client: ApiClient,
  credential: RemoteCredential,
): Promise<number> {
  if (targets.length === 0) throw new CliError('nothing to scan: give at least one target (--discover is local only)');
  const unwritable = await checkReportFiles(options);
  if (unwritable !== undefined) throw new CliError(unwritable);

  const progress = await startProgress(targets.length, options, io);
  const run: ScanRun = { schemaVersion: REPORT_SCHEMA_VERSION, generator: { name: 'svc', version: SVC_VERSION }, reports: [], errors: [] };
  let current: string | undefined;
  try {
    for (const target of targets) {
      current = undefined;
      const input = toRemoteInput(target);
      // The submission is not aborted by a Ctrl-C: once sent, the scan may already be queued, and only its id lets
      // the interrupt cancel it (a second Ctrl-C still exits at once).
      const submitted =
        credential === 'api-key'
          ? await client.request<ScanView>('POST', '/api/v1/scan', { body: { input, mode: options.mode } })
          : await client.request<ScanView>('POST', '/scan', { body: { input, mode: options.mode } });
      current = submitted.id;
      io.signal.throwIfAborted();
      const outcome = await follow(client, submitted, progress, io);
      const result = await readResult(client, credential, outcome, io);
      run.reports.push(...result.reports);
      run.errors.push(...result.errors);
      for (const report of result.reports) progress.onEvent({ type: 'done', target: reportLabel(report), report });
      for (const failure of result.errors) progress.onEvent({ type: 'error', target: failure.input, message: failure.message });
    }
  } catch (error) {
    progress.stop();
    if (io.signal.aborted) {
      io.stderr.write(`svc: interrupted${current === undefined ? '' : `; ${await cancelOnServer(client, credential, current)}`}\n`);
      return EXIT.interrupted;
    }
    throw error;
  }
  progress.stop();
  return printRun(run, options, io);
}

/** How long an interrupted scan's cancel request may take: the user pressed Ctrl-C and is waiting. */
const CANCEL_TIMEOUT_MS = 3_000;

/**
 * Cancels an interrupted scan on the server (DELETE /api/v1/scan/{id}; its quota stays spent) and says what became
 * of it. The cancel route takes an API key; a session has none, so such a scan goes on and stays readable.
 */
async function cancelOnServer(client: ApiClient, credential: RemoteCredential, scanId: string): Promise<string> {
  if (credential !== 'api-key') return `scan ${scanId} goes on running on ${client.server} (cancelling needs an API key)`;
  try {
    await client.request<ScanView>('DELETE', `/api/v1/scan/${encodeURIComponent(scanId)}`, { signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS) });
    return `scan ${scanId} was cancelled on ${client.server}`;
  } catch (error) {
    // 409: it finished meanwhile, and its result stays readable.
    if (error instanceof ApiError && error.code === 'CONFLICT') return `scan ${scanId} had already ended on ${client.server}`;
    return `scan ${scanId} could not be cancelled on ${client.server} (${error instanceof Error ? error.message : String(error)}); it may go on running`;
  }
}

function reportLabel(report: ScanReport): string {
  return report.target.origin ? `${report.target.origin.serverName} (${report.target.input})` : report.target.input;
}

interface Followed {
  scan: ScanView;
  /** Every finding the stream carried, by target: what a private session scan's report is built from. */
  findings: Map<string, Finding[]>;
}

/** Follows the scan's stream to its `completed`, `failed` or `cancelled` event, feeding the live view on the way. */
async function follow(client: ApiClient, submitted: ScanView, progress: Progress, io: CommandIo): Promise<Followed> {
  const findings = new Map<string, Finding[]>();
  const emit = (event: ScanEvent) => {
    if (event.type === 'finding') findings.set(event.target, [...(findings.get(event.target) ?? []), event.finding]);
    progress.onEvent(event);
  };
  for await (const message of client.events(`/scan/${encodeURIComponent(submitted.id)}/stream`, { signal: io.signal })) {
    const data = JSON.parse(message.data) as Record<string, unknown>;
    switch (message.event) {
      case 'snapshot': {
        const snapshot = data as { scan: ScanView; progress: StreamProgress | null; findings: Finding[] };
        if (snapshot.progress !== null) emit(progressEvent(snapshot.progress));
        // The snapshot's findings carry no target; a scan of one input reports them under its progress target.
        const target = snapshot.progress?.target ?? submitted.input;
        for (const finding of snapshot.findings) emit({ type: 'finding', target, finding });
        break;
      }
      case 'progress':
        emit(progressEvent(data as StreamProgress));
        break;
      case 'finding': {
        const { target, finding } = data as { target: string; finding: Finding };
        emit({ type: 'finding', target, finding });
        break;
      }
      case 'completed':
      case 'failed':
      case 'cancelled':
        return { scan: (data as { scan: ScanView }).scan, findings };
      default:
        // Event kinds a newer daemon may add are not for this CLI.
        break;
    }
  }
  throw new CliError(`the event stream of scan ${submitted.id} ended before the scan did; read it later with its id`);
}

function progressEvent(progress: StreamProgress): ScanEvent {
  return progress.done !== undefined && progress.total !== undefined
    ? { type: 'progress', target: progress.target, stage: progress.stage, done: progress.done, total: progress.total }
    : { type: 'stage', target: progress.target, stage: progress.stage };
}

/**
 * The run of one remote scan. With a key: GET /api/v1/scan/{id}. With a session: GET /scan/{id} for a public scan;
 * a private scan has no session read route (spec 4.4: /scan/{id} is public scans only), so its report is built from
 * the stream, which carried every finding: findings, score, grade and counts are exact, the tool list and file
 * statistics are not known, and stderr says so.
 */
async function readResult(client: ApiClient, credential: RemoteCredential, { scan, findings }: Followed, io: CommandIo): Promise<Pick<ScanRun, 'reports' | 'errors'>> {
  if (scan.status !== 'completed') return { reports: [], errors: [{ input: scan.input, message: scan.error ?? `the scan ended ${scan.status}` }] };
  if (credential === 'api-key' || scan.visibility === 'public') {
    const path = credential === 'api-key' ? `/api/v1/scan/${encodeURIComponent(scan.id)}` : `/scan/${encodeURIComponent(scan.id)}`;
    const read = await client.request<ScanView & { result: ScanRun | null }>('GET', path, { signal: io.signal });
    if (read.result === null) return { reports: [], errors: [{ input: scan.input, message: 'the daemon has no result for this completed scan' }] };
    return { reports: read.result.reports, errors: read.result.errors };
  }
  io.stderr.write(
    'svc: a private scan read with a session: the report is built from the event stream (no tool list or file statistics); an API key (`svc keys create --label cli --save`) gets the full report\n',
  );
  return { reports: streamedReports(scan, findings), errors: [] as TargetFailure[] };
}

const SOURCE_KINDS: Record<string, TargetKind> = { npm: 'npm', pypi: 'pypi', git: 'git', directory: 'directory', config: 'directory', remote: 'remote' };

function streamedReports(scan: ScanView, findings: Map<string, Finding[]>): ScanReport[] {
  const targets = findings.size === 0 ? new Map([[scan.input, [] as Finding[]]]) : findings;
  const started = scan.started_at ?? scan.finished_at ?? new Date().toISOString();
  const total = scan.finished_at === null || scan.started_at === null ? 0 : Date.parse(scan.finished_at) - Date.parse(scan.started_at);
  return [...targets].map(([target, found]) => {
    const { score, grade, counts } = scoreFindings(found);
    return {
      schemaVersion: REPORT_SCHEMA_VERSION,
      generator: { name: 'svc', version: SVC_VERSION },
      target: { kind: SOURCE_KINDS[scan.target.source ?? ''] ?? 'directory', input: target, name: scan.target.package ?? target, ...(scan.target.version === null ? {} : { version: scan.target.version }), contentHash: '' },
      mode: scan.mode,
      startedAt: started,
      timings: { total },
      stats: { files: 0, bytes: 0, parsedFiles: 0, skippedFiles: 0 },
      tools: [],
      findings: found,
      score,
      grade,
      counts,
      problems: [],
      // The stream carries findings, not what the daemon's scan left out: this report cannot claim full coverage.
      coverage: {
        status: 'partial',
        reasons: ['report rebuilt from the event stream: the daemon\'s tool list and coverage are not known (an API key reads the full report)'],
      },
    };
  });
}
