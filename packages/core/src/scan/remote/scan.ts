// A live scan of a remote MCP endpoint: connect, list everything the model would read, run the catalog's rules on it
// with the endpoint's posture, and report. An endpoint that cannot be listed is never reported clean: a failure to
// connect is a target error, a refusal (TLS, authentication) a `not-scanned` report that says why.

import { createHash } from 'node:crypto';
import { runPanel, defaultJudges } from '../../judges/panel.js';
import { RULES } from '../../rules/index.js';
import { REPORT_SCHEMA_VERSION } from '../../report/schema.js';
import { SVC_VERSION } from '../../version.js';
import type { ScanOptions } from '../engine.js';
import { notScanned } from '../coverage.js';
import { foldRootCauses } from '../facets.js';
import type { Coverage, Finding, ParseProblem, RemoteObservation, ScanReport, ScanTarget, ToolDefinition } from '../model.js';
import { modelTexts } from '../model-texts.js';
import { pinnedEntry } from '../lockfile.js';
import { runRules, sortFindings } from '../run-rules.js';
import { scoreFindings } from '../score.js';
import { TargetError } from '../sources/errors.js';
import { applySuppressions } from '../suppressions.js';
import { listRemote, type RemoteListing } from './client.js';
import { remoteDefinitions } from './definitions.js';
import { DEFAULT_REMOTE_LIMITS, GuardedFetch, proxyFromEnv, RemoteFetchError } from './fetch.js';
import { displayUrl, expandHeaders, hasCredentials, redactor } from './headers.js';
import { corsObservations, noAuthObservation, probeForeignOrigin, urlObservations } from './posture.js';

type RemoteTarget = Extract<ScanTarget, { kind: 'remote' }>;

/** Whether a `remote` target is an endpoint to connect to (config.ts also marks container images and bare commands remote). */
export function isLiveEndpoint(target: RemoteTarget): boolean {
  return /^https?:\/\//i.test(target.url) && URL.canParse(target.url);
}

export async function scanRemote(target: RemoteTarget, options: ScanOptions = {}): Promise<ScanReport> {
  const mode = options.mode ?? 'fast';
  const started = performance.now();
  const startedAt = (options.clock?.() ?? new Date()).toISOString();
  const remote = options.source?.remote ?? {};
  const limits = { ...DEFAULT_REMOTE_LIMITS, ...remote.limits };
  const url = new URL(target.url);
  const shown = displayUrl(url);
  const label = target.origin ? `${target.origin.serverName} (${target.input})` : target.input;

  // A config's server carries its own headers; the command line's go only to endpoints named on the command line,
  // so a token given for one server never reaches the others a config lists. A sign-in token (endpointHeaders) is
  // bound to one endpoint URL, so it goes to that URL wherever it is named, unless a config's server sends its own
  // credentials.
  let headers: Record<string, string>;
  try {
    if (target.origin) {
      const own = expandHeaders(target.headers ?? {}, remote.env);
      headers = hasCredentials(own) ? own : { ...own, ...remote.endpointHeaders?.[url.href] };
    } else {
      headers = { ...remote.headers, ...remote.endpointHeaders?.[url.href] };
    }
  } catch (error) {
    throw new TargetError(target.input, (error as Error).message);
  }
  const redact = redactor(headers);
  const credentials = hasCredentials(headers);
  const observations: RemoteObservation[] = urlObservations(url, shown);

  options.onEvent?.({ type: 'stage', target: label, stage: 'fetch' });
  let guard: GuardedFetch;
  try {
    const proxy = proxyFromEnv(remote.env);
    guard = new GuardedFetch(url, { limits, allowPrivate: remote.allowPrivate !== false, ...(proxy && { proxy }), signal: options.signal });
  } catch (error) {
    throw new TargetError(target.input, (error as Error).message);
  }
  let listing: RemoteListing | undefined;
  let refusal: string | undefined;
  try {
    try {
      listing = await listRemote(url, headers, guard, limits);
    } catch (error) {
      options.signal?.throwIfAborted();
      refusal = refusalReason(guard, credentials);
      if (guard.tlsError) observations.push({ kind: 'tls-error', url: shown, detail: guard.tlsError });
      if (refusal === undefined) throw new TargetError(target.input, redact(`cannot list the endpoint: ${connectError(error, guard)}`));
    }
    if (listing) {
      observations.push(...corsObservations(guard.exchanges, shown));
      if (listing.transport === 'streamable-http') observations.push(...(await probeForeignOrigin(url, shown, headers, guard)));
      observations.push(...noAuthObservation(url, shown, credentials));
    }
  } finally {
    await guard.close();
  }
  const fetchMs = performance.now() - started;

  const { tools, extraTexts } = listing ? remoteDefinitions(shown, listing) : { tools: [], extraTexts: [] };
  const problems: ParseProblem[] = [];
  options.onEvent?.({ type: 'stage', target: label, stage: 'rules' });
  const workspace = { name: shown, target };
  let findings = await runRules(
    options.rules ?? RULES,
    { mode, workspace, files: [], manifests: [], tools, modelTexts: [...modelTexts(tools), ...extraTexts], flows: [], facts: [], remote: observations, now: new Date(startedAt), ...pinnedEntry(options.lock, workspace) },
    problems,
    options.signal,
  );
  const silenced = applySuppressions({ findings, files: [], ownCode: false, options: options.suppressions ?? {}, now: options.clock?.() ?? new Date() });
  findings = silenced.findings;
  let dismissed: Finding[] | undefined;
  if (mode === 'deep' && listing) {
    dismissed = [];
    if (findings.length > 0) {
      const panel = await runPanel(findings, { tools, flows: [], facts: [], files: [], manifests: [] }, { judges: options.judges ?? defaultJudges(), signal: options.signal });
      findings = panel.findings;
      dismissed = panel.dismissed;
    }
  }
  const rootCauses = new Map((options.rules ?? RULES).flatMap((rule) => (rule.meta.rootCause ? [[rule.id, rule.meta.rootCause] as const] : [])));
  findings = foldRootCauses(findings, (ruleId) => rootCauses.get(ruleId));
  for (const finding of findings) options.onEvent?.({ type: 'finding', target: label, finding });

  const scored = scoreFindings(findings);
  const reasons = [...(listing?.gaps ?? []).map(redact), ...problems.map((problem) => problem.message)];
  // Without its tool list the endpoint is not known well enough to grade, whatever else was listed.
  const graded = listing !== undefined && !listing.toolsFailed;
  const coverage: Coverage = !listing
    ? notScanned(refusal!)
    : !graded
      ? { status: 'not-scanned', reasons }
      : { status: reasons.length > 0 ? 'partial' : 'scanned', reasons };
  const report: ScanReport = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generator: { name: 'svc', version: SVC_VERSION },
    target: {
      kind: 'remote',
      input: target.input,
      name: shown,
      ...(listing?.server?.version ? { version: listing.server.version } : {}),
      contentHash: listingHash(tools),
      ...(target.origin ? { origin: target.origin } : {}),
    },
    mode,
    startedAt,
    timings: { fetch: round(fetchMs), total: round(performance.now() - started) },
    stats: { files: 0, bytes: 0, parsedFiles: 0, skippedFiles: 0 },
    tools,
    findings: sortFindings(findings),
    ...(dismissed ? { dismissed: sortFindings(dismissed) } : {}),
    // Nothing listed is nothing graded: a refused endpoint keeps its posture findings but gets no score.
    score: graded ? scored.score : null,
    grade: graded ? scored.grade : null,
    counts: scored.counts,
    problems,
    coverage,
    ...(silenced.suppressed.length > 0 ? { suppressed: sortFindings(silenced.suppressed) } : {}),
  };
  options.onEvent?.({ type: 'done', target: label, report });
  return report;
}

/** The words every refusal of an endpoint that asks for OAuth sign-in carries; see `requiresOAuthSignIn`. */
const OAUTH_REQUIRED = 'requires OAuth sign-in';

/**
 * Whether a report is of an endpoint that was not scanned because it wants OAuth sign-in (none was given, or the
 * token given was refused with an OAuth challenge): the CLI then signs in and scans it again.
 */
export function requiresOAuthSignIn(report: ScanReport): boolean {
  return report.target.kind === 'remote' && report.coverage.status === 'not-scanned' && report.coverage.reasons.some((reason) => reason.includes(OAUTH_REQUIRED));
}

/** Why a server that answered refused to be listed, or undefined when it did not answer with a refusal. */
function refusalReason(guard: GuardedFetch, credentials: boolean): string | undefined {
  if (guard.tlsError) {
    return `TLS error (${guard.tlsError}): the endpoint's certificate was not accepted, so it was not scanned (svc never turns certificate checks off)`;
  }
  const refused = guard.exchanges.find((exchange) => exchange.status === 401 || exchange.status === 403);
  if (!refused) return undefined;
  // RFC 9728: a protected resource names its metadata in the challenge; that is what an OAuth client signs in from.
  const oauth = /resource_metadata\s*=/i.test(refused.headers.get('www-authenticate') ?? '');
  if (credentials) {
    return `the server refused the credentials given (HTTP ${refused.status})${oauth ? ` and ${OAUTH_REQUIRED}` : ''}, so it was not scanned`;
  }
  if (oauth) {
    // Read by CLI users and by the daemon's API callers alike, so it names both ways in.
    return `the server ${OAUTH_REQUIRED}, so it was not scanned; the svc CLI signs in from a terminal (svc scan URL --oauth), or give a bearer token (svc scan --bearer-token-env NAME, or the API's bearer_token)`;
  }
  return `the server requires authentication (HTTP ${refused.status}), so it was not scanned; pass a bearer token with --bearer-token-env NAME or --header "Authorization: Bearer …"`;
}

/** The reason a connection failed, cut short: the SDK's errors can quote whole response bodies of the server. */
function connectError(error: unknown, guard: GuardedFetch): string {
  const message = error instanceof RemoteFetchError ? error.message : guard.networkError && guard.exchanges.length === 0 ? guard.networkError : error instanceof Error ? error.message : String(error);
  return message.length > 400 ? `${message.slice(0, 400)}…` : message;
}

/** sha256 over the listed definitions (stable order), so two scans of an unchanged server hash the same. */
function listingHash(tools: readonly ToolDefinition[]): string {
  const canonical = tools.map(({ kind, name, title, description, parameters, annotations, uri }) => JSON.stringify([kind, name, title, description, parameters, annotations, uri]));
  return createHash('sha256').update(canonical.sort().join('\n')).digest('hex');
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
