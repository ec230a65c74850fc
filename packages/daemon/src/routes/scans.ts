import { randomUUID } from 'node:crypto';
import {
  bucketsFor,
  effectiveTier,
  invalidField,
  rateLimited,
  rateLimitError,
  rateLimitHeaders,
  ServiceError,
  successEnvelope,
  tighterStanding,
  type Finding,
  type ScanRun,
  type ScanTarget,
  type Tier,
} from '@svc/core';
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { AppEnv } from '../env.js';
import { gitUrlProblem } from '../jobs/git-destination.js';
import { checkScanInput } from '../jobs/input-policy.js';
import { describeTarget } from '../jobs/summary.js';
import { requireApiKey } from '../middleware/api-key.js';
import { callerId, countAnonymousRequest, optionalCredential } from '../middleware/credential.js';
import { optionalSession, requireSession } from '../middleware/session.js';
import { API_KEY_SECURITY, createRouter, envelope, errorResponses, jsonContent, SESSION_SECURITY } from '../openapi.js';
import { scanView, scanViewSchema, type ScanView } from '../scan-view.js';
import type { ScanRecord, ScanVisibility, StoredScanEvent, User } from '../store/repositories.js';
import { decodeSignedCursor, encodeSignedCursor, pageQuery } from './cursor.js';

// Scan routes (spec 4.4). /api/v1/* answers bare data, the web routes the envelope (DESIGN.md "Bodies").
// A scan someone may not see is "not found", exactly like a scan that does not exist (DESIGN.md).

const BODY_ERRORS = ['INVALID_FIELD', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'INTERNAL_ERROR'] as const;

/** The longest `bearer_token` a submission may carry (docs/security.md, Limits). */
export const MAX_BEARER_TOKEN_CHARS = 8192;

const submitBody = z
  .strictObject({
    input: z
      .string({ error: 'input is required' })
      .trim()
      .min(1, { error: 'input must not be empty' })
      .max(2048, { error: 'input may have at most 2048 characters' })
      .openapi({
        description:
          'What to scan: an npm spec (`npm:name@version`, `@scope/name`), a PyPI spec (`pypi:name==version`), a git URL (`git+https://…`, `github:owner/repo`), a remote MCP endpoint, or an absolute path (a folder or an MCP client config) inside the daemon\'s SVC_SCAN_ROOTS.',
      }),
    mode: z.enum(['fast', 'deep'], { error: 'mode must be fast or deep' }).default('fast').openapi({ description: 'fast (the rules) or deep (cross-file dataflow and the judge panel).' }),
    visibility: z
      .enum(['public', 'private'], { error: 'visibility must be public or private' })
      .optional()
      .openapi({ description: 'Default: public for package specs, private for paths, git URLs and remote endpoints. Private needs a paid plan (402).' }),
    bearer_token: z
      .string({ error: 'bearer_token must be a string' })
      .trim()
      .min(1, { error: 'bearer_token must not be empty' })
      .max(MAX_BEARER_TOKEN_CHARS, { error: `bearer_token may have at most ${MAX_BEARER_TOKEN_CHARS} characters` })
      .regex(/^[\x21-\x7e]+$/, { error: 'bearer_token must be printable ASCII without spaces' })
      .optional()
      .openapi({
        description:
          'For a remote MCP endpoint input only: sent as `Authorization: Bearer <token>` to that endpoint. Kept in memory until the scan runs; never stored, logged or shown.',
      }),
  })
  .openapi('ScanSubmission');

const scanIdParam = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' }, description: 'The scan id.' }) });

const scanWithResult = scanViewSchema
  .extend({ result: z.unknown().nullable().openapi({ description: 'The ScanRun (reports and per-target errors, schema packages/core/schema/report.schema.json) once completed.' }) })
  .openapi('ScanWithResult');

const scanPage = z.object({ items: z.array(scanViewSchema), next_cursor: z.string().nullable() });

const SUBMIT_DESCRIPTION =
  'Queues a scan (202); it runs on the daemon\'s worker pool and its progress is at /scan/{id}/stream. Quotas (spec 8): ' +
  'every submission counts toward the per-minute burst of the tier; public scans toward the day/week/month buckets, deep ones also toward the deep buckets; ' +
  'private scans toward their own month buckets (402 SUBSCRIPTION_REQUIRED on tiers without a private budget). Each bucket exists per key and per user with the same numbers. ' +
  'A team member whose team plan ranks at least as high as their own pays with the team plan: org_id names the team and its members see the private scan.';

const submitApi = createRoute({
  method: 'post',
  path: '/api/v1/scan',
  summary: 'Submit a scan',
  description: SUBMIT_DESCRIPTION,
  security: API_KEY_SECURITY,
  middleware: [requireApiKey('scan:submit')] as const,
  request: { body: { required: true, ...jsonContent(submitBody, 'The scan to run') } },
  responses: {
    202: jsonContent(scanViewSchema, 'Queued'),
    ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'SUBSCRIPTION_REQUIRED', 'RATE_LIMITED', ...BODY_ERRORS),
  },
});

const getApi = createRoute({
  method: 'get',
  path: '/api/v1/scan/{id}',
  summary: 'Read a scan',
  description: "Any public scan, and private scans of the key's owner or the owner's team.",
  security: API_KEY_SECURITY,
  middleware: [requireApiKey('scan:get')] as const,
  request: { params: scanIdParam },
  responses: {
    200: jsonContent(scanWithResult, 'The scan and, once completed, its result'),
    ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'RATE_LIMITED', 'INTERNAL_ERROR'),
  },
});

const cancelApi = createRoute({
  method: 'delete',
  path: '/api/v1/scan/{id}',
  summary: 'Cancel a scan',
  description:
    'Stops a queued or running scan: it ends in `cancelled`, its worker is stopped and its stream gets a final `cancelled` event ({scan}). ' +
    'The quota the submission spent is not refunded. Only the submitter or an owner or admin of the team that paid may cancel (others who can see the scan get 403); ' +
    'a scan that has already completed, failed or been cancelled is 409 CONFLICT. Needs scan:submit (scan:write includes it).',
  security: API_KEY_SECURITY,
  middleware: [requireApiKey('scan:submit')] as const,
  request: { params: scanIdParam },
  responses: {
    200: jsonContent(scanViewSchema, 'The scan, now cancelled'),
    ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED', 'INTERNAL_ERROR'),
  },
});

const listApi = createRoute({
  method: 'get',
  path: '/api/v1/scans',
  summary: "The key owner's public scans",
  description: 'Newest first. Pass `next_cursor` as `cursor` for the next page; it is null on the last page. Private scans are at GET /user/scans.',
  security: API_KEY_SECURITY,
  middleware: [requireApiKey('scan:list')] as const,
  request: { query: pageQuery },
  responses: {
    200: jsonContent(scanPage, 'A page of scans'),
    ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'INVALID_FIELD', 'RATE_LIMITED', 'INTERNAL_ERROR'),
  },
});

const submitWeb = createRoute({
  method: 'post',
  path: '/scan',
  summary: 'Submit a scan from the web app',
  description: `${SUBMIT_DESCRIPTION} Without a session token the caller is anonymous: fast public scans only, budgets per client IP (3 a minute, 10 a day).`,
  security: [...SESSION_SECURITY, {}],
  middleware: [optionalSession] as const,
  request: { body: { required: true, ...jsonContent(submitBody, 'The scan to run') } },
  responses: {
    202: jsonContent(envelope(scanViewSchema), 'Queued'),
    ...errorResponses('UNAUTHORIZED', 'SUBSCRIPTION_REQUIRED', 'RATE_LIMITED', ...BODY_ERRORS),
  },
});

const getWeb = createRoute({
  method: 'get',
  path: '/scan/{id}',
  summary: 'Read a public scan',
  description:
    'Public scans only; a private scan is 404 here (read it with an API key at /api/v1/scan/{id}). No credential is read; requests count per client address (8000 per 5 minutes).',
  middleware: [countAnonymousRequest] as const,
  request: { params: scanIdParam },
  responses: {
    200: jsonContent(envelope(scanWithResult), 'The scan and, once completed, its result'),
    ...errorResponses('NOT_FOUND', 'RATE_LIMITED', 'INTERNAL_ERROR'),
  },
});

const stream = createRoute({
  method: 'get',
  path: '/scan/{id}/stream',
  summary: 'Follow a scan (server-sent events)',
  description:
    'A fresh connection gets `snapshot` first ({scan, progress, findings}: the state so far), then `progress` ({target, stage, done?, total?}), `finding` ({target, finding}) and finally `completed`, `failed` or `cancelled` ({scan}), after which the stream ends; ' +
    'a scan that already ended gets the snapshot and its final event. Every event but the snapshot replays from its id: reconnect with `Last-Event-ID` to get exactly the events missed (no snapshot then). ' +
    'A comment line is sent every 15 s so proxies keep the connection open. One client address may hold 20 streams open at once; more is 429 RATE_LIMITED (window `open_streams`). Public scans for everyone; a private scan needs the Authorization of its owner or a member of the team that paid (a session token, or an API key with scan:get).',
  security: [...SESSION_SECURITY, ...API_KEY_SECURITY, {}],
  middleware: [optionalCredential('scan:get')] as const,
  request: { params: scanIdParam },
  responses: {
    200: { content: { 'text/event-stream': { schema: z.string() } }, description: 'The event stream' },
    ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'RATE_LIMITED', 'INTERNAL_ERROR'),
  },
});

const voteSchema = z.object({ judge: z.string(), verdict: z.enum(['confirm', 'dismiss', 'uncertain']), reason: z.string() });
const judgedFinding = z.object({
  id: z.string(),
  target: z.string(),
  rule_id: z.string(),
  severity: z.string(),
  message: z.string(),
  consensus: z.enum(['confirm', 'dismiss', 'uncertain']).nullable(),
  votes: z.array(voteSchema),
});

const consensus = createRoute({
  method: 'get',
  path: '/scan/{id}/consensus',
  summary: "The judge panel's votes of a deep scan",
  description:
    'Every finding the panel voted on: `findings` were kept, `dismissed` were dismissed by majority (and are not in the report\'s findings or score). ' +
    'A fast scan has no panel (404); a deep scan that has not completed yet is 409 CONFLICT. Visibility as for the stream.',
  security: [...SESSION_SECURITY, ...API_KEY_SECURITY, {}],
  middleware: [optionalCredential('scan:get')] as const,
  request: { params: scanIdParam },
  responses: {
    200: jsonContent(envelope(z.object({ scan_id: z.string(), judges: z.array(z.string()), findings: z.array(judgedFinding), dismissed: z.array(judgedFinding) })), 'The votes'),
    ...errorResponses('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED', 'INTERNAL_ERROR'),
  },
});

function historyRoute(path: '/scans' | '/user/scans', summary: string, description: string) {
  return createRoute({
    method: 'get',
    path,
    summary,
    description,
    security: SESSION_SECURITY,
    middleware: [requireSession] as const,
    request: { query: pageQuery },
    responses: {
      200: jsonContent(envelope(scanPage), 'A page of scans'),
      ...errorResponses('UNAUTHORIZED', 'INVALID_FIELD', 'RATE_LIMITED', 'INTERNAL_ERROR'),
    },
  });
}

const publicHistory = historyRoute('/scans', "The caller's public scans", 'Newest first, cursor pagination as at /api/v1/scans.');
const privateHistory = historyRoute(
  '/user/scans',
  "The caller's private scans",
  "Newest first. Members of a team or business team also see the private scans their team paid for (spec 4.6 rule 4).",
);

export const scanRoutes = createRouter()
  .openapi(submitApi, async (c) => {
    const body = c.req.valid('json');
    const scan = await submitScan(c, body, { user: c.get('user'), keyId: c.get('apiKey').id });
    c.header('Location', `/api/v1/scan/${scan.id}`);
    return c.json(scanView(scan, { insider: true }), 202);
  })
  .openapi(getApi, async (c) => {
    const { scan, insider } = await visibleScan(c, c.req.valid('param').id);
    return jsonWithResult(c, scanView(scan, { insider }), await c.get('services').scans.resultJson(scan.id), { envelope: false });
  })
  .openapi(cancelApi, async (c) => {
    const { scan } = await visibleScan(c, c.req.valid('param').id);
    const { scans, teams, runner, clock } = c.get('services');
    const caller = c.get('user').id;
    const teamAdmin = async () => {
      const membership = scan.orgId === null ? undefined : await teams.membershipOf(caller);
      return membership?.teamId === scan.orgId && (membership.role === 'owner' || membership.role === 'admin');
    };
    if (scan.userId !== caller && !(await teamAdmin())) throw new ServiceError('FORBIDDEN', 'Only the submitter or an admin of the team that paid may cancel this scan.');
    const outcome = await scans.cancel({ id: scan.id, now: clock() });
    if (outcome === 'not_found') throw new ServiceError('NOT_FOUND');
    if (outcome === 'finished') {
      const status = (await scans.findById(scan.id))?.status ?? scan.status;
      throw new ServiceError('CONFLICT', `The scan has already ${status === 'cancelled' ? 'been cancelled' : status}.`);
    }
    await runner.cancel(scan.id);
    const cancelled = await scans.findById(scan.id);
    if (cancelled === undefined) throw new ServiceError('NOT_FOUND');
    return c.json(scanView(cancelled, { insider: true }), 200);
  })
  .openapi(listApi, async (c) => c.json(await listPage(c, c.get('apiKey').userId, 'public', c.req.valid('query')), 200))
  .openapi(submitWeb, async (c) => {
    const body = c.req.valid('json');
    // Unset for an anonymous caller (optionalSession without a header).
    const user = c.get('user') as User | undefined;
    const scan = await submitScan(c, body, { user });
    c.header('Location', `/scan/${scan.id}`);
    return c.json(successEnvelope(scanView(scan, { insider: true })), 202);
  })
  .openapi(getWeb, async (c) => {
    const scan = await c.get('services').scans.findById(c.req.valid('param').id);
    if (scan === undefined || scan.visibility !== 'public') throw new ServiceError('NOT_FOUND');
    return jsonWithResult(c, scanView(scan, { insider: false }), await c.get('services').scans.resultJson(scan.id), { envelope: true });
  })
  .openapi(stream, async (c) => {
    const { scan, insider } = await visibleScan(c, c.req.valid('param').id);
    const resumeFrom = parseLastEventId(c.req.header('last-event-id'));
    const { hub } = c.get('services');
    const client = c.get('clientIp');
    if (!hub.openStream(client, MAX_STREAMS_PER_CLIENT)) {
      throw rateLimited({ window: 'open_streams', tier: 'anonymous', current: hub.streamsOf(client), limit: MAX_STREAMS_PER_CLIENT, retry_after_seconds: 5 });
    }
    return streamSSE(c, async (sse) => {
      try {
        await followScan(c, sse, scan.id, { resumeFrom, insider });
      } finally {
        hub.closeStream(client);
      }
    }) as never;
  })
  .openapi(consensus, async (c) => {
    const { scan } = await visibleScan(c, c.req.valid('param').id);
    if (scan.mode !== 'deep') throw new ServiceError('NOT_FOUND', 'This scan ran in fast mode; only deep scans have judge votes.');
    const run = await c.get('services').scans.result(scan.id);
    if (run === undefined) throw new ServiceError('CONFLICT', `The scan is ${scan.status}; the votes are there once it has completed.`);
    return c.json(successEnvelope(panelVotes(scan.id, run)), 200);
  })
  .openapi(publicHistory, async (c) => c.json(successEnvelope(await listPage(c, c.get('session').userId, 'public', c.req.valid('query'))), 200))
  .openapi(privateHistory, async (c) => {
    const membership = await c.get('services').teams.membershipOf(c.get('session').userId);
    return c.json(successEnvelope(await listPage(c, c.get('session').userId, 'private', c.req.valid('query'), membership?.teamId)), 200);
  });

/**
 * `{...view, result}` (in the envelope or bare) with the stored result spliced in as it is: it is the largest part of
 * the answer and already JSON, so parsing and re-serialising it would only cost time.
 */
function jsonWithResult(c: Context<AppEnv>, view: ScanView, resultJson: string | undefined, { envelope }: { envelope: boolean }): never {
  const data = `${JSON.stringify(view).slice(0, -1)},"result":${resultJson ?? 'null'}}`;
  return c.body(envelope ? `{"success":true,"data":${data}}` : data, 200, { 'content-type': 'application/json' }) as never;
}

/**
 * The one way a scan is queued, for both submit routes: the input is checked against SVC_SCAN_ROOTS before
 * anything else, the paying plan decides the buckets, and the buckets and the queued record are written in one
 * transaction, so a refused request writes nothing and concurrent submissions never overspend a budget.
 */
async function submitScan(
  c: Context<AppEnv>,
  body: z.infer<typeof submitBody>,
  caller: { user?: User | undefined; keyId?: string },
): Promise<ScanRecord> {
  const { scans, teams, scanRoots, git, runner, clock } = c.get('services');
  const checked = checkScanInput(body.input, scanRoots);
  if (!checked.ok) throw invalidField('input', checked.message);
  // A git URL's transport and literal address are refused here; its host name is resolved and pinned in the worker.
  const gitProblem = checked.target.kind === 'git' ? gitUrlProblem(checked.target.url, git) : undefined;
  if (gitProblem !== undefined) throw invalidField('input', gitProblem);
  if (body.bearer_token !== undefined && checked.target.kind !== 'remote') {
    throw invalidField('bearer_token', 'bearer_token applies only to a remote MCP endpoint (an http(s) URL)');
  }
  const visibility = body.visibility ?? defaultVisibility(checked.target);

  let tier: Tier = 'anonymous';
  let orgId: string | null = null;
  if (caller.user !== undefined) {
    const membership = await teams.membershipOf(caller.user.id);
    const paying = effectiveTier(caller.user.tier, membership?.teamTier);
    tier = paying.tier;
    if (paying.paidBy === 'org' && membership !== undefined) orgId = membership.teamId;
  }
  const now = clock();
  const plan = bucketsFor(
    {
      kind: 'scan-submit',
      tier,
      mode: body.mode,
      visibility,
      subjects: caller.user === undefined ? { ip: c.get('clientIp') } : { userId: caller.user.id, ...(caller.keyId === undefined ? {} : { keyId: caller.keyId }) },
    },
    now,
  );
  if (!plan.ok) throw new ServiceError(plan.refusal.code, plan.refusal.message);

  const id = randomUUID();
  // Held before the record exists, so the runner never claims the scan without its token.
  if (body.bearer_token !== undefined) runner.holdCredential(id, body.bearer_token);
  const submitted = await scans.submit({
    scan: {
      id,
      userId: caller.user?.id ?? null,
      orgId,
      keyId: caller.keyId ?? null,
      input: body.input,
      mode: body.mode,
      visibility,
      bearerTokenGiven: body.bearer_token !== undefined,
      ...describeTarget(checked.target),
    },
    buckets: plan.buckets,
    now,
  }).catch((error: unknown) => {
    runner.releaseCredential(id);
    throw error;
  });
  const { decision, scan } = submitted;
  if (!decision.allowed) runner.releaseCredential(id);
  // The headers describe the tightest bucket the request touched, request counters included (DESIGN.md); on a 429
  // that is the full bucket.
  const headers = decision.allowed ? rateLimitHeaders({ allowed: true, tightest: tighterStanding(c.get('rateLimit') ?? null, decision.tightest) }) : rateLimitHeaders(decision);
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  if (!decision.allowed) throw rateLimitError(decision.blocked);
  if (scan === undefined) throw new Error('an allowed submission returned no scan');
  runner.notify();
  return scan;
}

/** DESIGN.md: local paths and git URLs default to private, package specs to public; remote endpoints may be internal, so private. */
function defaultVisibility(target: ScanTarget): ScanVisibility {
  return target.kind === 'npm' || target.kind === 'pypi' ? 'public' : 'private';
}

/**
 * The scan if the caller may see it: public, their own, or paid by their team (spec 4.6 rule 4); else 404.
 * `insider`: the caller is the owner or in that team, and may see who ran it.
 */
async function visibleScan(c: Context<AppEnv>, id: string): Promise<{ scan: ScanRecord; insider: boolean }> {
  const { scans, teams } = c.get('services');
  const scan = await scans.findById(id);
  if (scan === undefined) throw new ServiceError('NOT_FOUND');
  const viewer = callerId(c);
  const insider =
    viewer !== undefined &&
    (scan.userId === viewer || (scan.orgId !== null && (await teams.membershipOf(viewer))?.teamId === scan.orgId));
  if (scan.visibility === 'private' && !insider) throw new ServiceError('NOT_FOUND');
  return { scan, insider };
}

const scanPosition = z.object({ createdAt: z.string(), id: z.string() });

async function listPage(
  c: Context<AppEnv>,
  userId: string,
  visibility: ScanVisibility,
  query: z.infer<typeof pageQuery>,
  orgId?: string,
): Promise<z.infer<typeof scanPage>> {
  const { scans, cursorKey } = c.get('services');
  // One cursor kind per list, so a cursor of the private history cannot continue the public one.
  const kind = `scans-${visibility}`;
  const after = query.cursor === undefined ? undefined : decodeSignedCursor(cursorKey, kind, query.cursor, scanPosition);
  const page = await scans.list({ userId, visibility, ...(orgId === undefined ? {} : { orgId }) }, { after, limit: query.limit });
  // Lists hold the caller's own scans and their team's.
  return {
    items: page.items.map((scan) => scanView(scan, { insider: true })),
    next_cursor: page.next === undefined ? null : encodeSignedCursor(cursorKey, kind, page.next),
  };
}

function panelVotes(scanId: string, run: ScanRun) {
  const judges = new Set<string>();
  const judged = (target: string, finding: Finding): z.infer<typeof judgedFinding> => {
    for (const vote of finding.votes ?? []) judges.add(vote.judge);
    return {
      id: finding.id,
      target,
      rule_id: finding.ruleId,
      severity: finding.severity,
      message: finding.message,
      consensus: finding.consensus ?? null,
      votes: finding.votes ?? [],
    };
  };
  const findings = run.reports.flatMap((report) => report.findings.map((finding) => judged(report.target.name, finding)));
  const dismissed = run.reports.flatMap((report) => (report.dismissed ?? []).map((finding) => judged(report.target.name, finding)));
  return { scan_id: scanId, judges: [...judges].sort(), findings, dismissed };
}

// ---- the event stream ----

const TERMINAL_EVENTS = new Set(['completed', 'failed', 'cancelled']);

/** Open streams one client address may hold at once (a browser tab per scan, a CI job per scan); more is 429. */
export const MAX_STREAMS_PER_CLIENT = 20;

/** A Last-Event-ID we issued is a positive integer; anything else is treated as a fresh connection. */
function parseLastEventId(header: string | undefined): number | undefined {
  if (header === undefined || !/^\d{1,15}$/.test(header.trim())) return undefined;
  return Number(header.trim());
}

/**
 * Subscribes first and reads the store second, so no event can fall between the two; events are then sent in id
 * order exactly once (the live ones that were already replayed are dropped by id).
 */
async function followScan(
  c: Context<AppEnv>,
  sse: SSEStreamingApi,
  scanId: string,
  { resumeFrom, insider }: { resumeFrom: number | undefined; insider: boolean },
): Promise<void> {
  const { scans, hub, streamHeartbeatMs } = c.get('services');
  const pending: StoredScanEvent[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  const unsubscribe = hub.subscribe(scanId, (event) => {
    pending.push(event);
    wake?.();
  });
  sse.onAbort(() => {
    closed = true;
    wake?.();
  });
  try {
    let sent = 0;
    const send = async (event: StoredScanEvent): Promise<boolean> => {
      await sse.writeSSE({ id: String(event.seq), event: event.event, data: event.data });
      sent = event.seq;
      return TERMINAL_EVENTS.has(event.event);
    };

    const history = await scans.eventsAfter(scanId, resumeFrom ?? 0);
    if (resumeFrom === undefined) {
      const scan = await scans.findById(scanId);
      if (scan === undefined) return;
      const last = history.at(-1);
      const progress = history.findLast((event) => event.event === 'progress');
      await sse.writeSSE({
        event: 'snapshot',
        id: String(last?.seq ?? 0),
        data: JSON.stringify({
          scan: scanView(scan, { insider }),
          progress: progress === undefined ? null : JSON.parse(progress.data),
          findings: history.filter((event) => event.event === 'finding').map((event) => (JSON.parse(event.data) as { finding: Finding }).finding),
        }),
      });
      sent = last?.seq ?? 0;
      const terminal = history.find((event) => TERMINAL_EVENTS.has(event.event));
      if (terminal !== undefined) {
        await sse.writeSSE({ id: String(terminal.seq), event: terminal.event, data: terminal.data });
        return;
      }
      if (scan.status === 'cancelled') return;
    } else {
      for (const event of history) if (await send(event)) return;
      // Resumed after the final event, or a cancelled scan: nothing more will come.
      const earlier = await scans.eventsAfter(scanId, 0);
      if (earlier.some((event) => TERMINAL_EVENTS.has(event.event)) || (await scans.findById(scanId))?.status === 'cancelled') return;
    }

    while (!closed) {
      for (let event = pending.shift(); event !== undefined; event = pending.shift()) {
        if (event.seq > sent && (await send(event))) return;
      }
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await new Promise<boolean>((resolve) => {
        wake = () => resolve(false);
        timer = setTimeout(() => resolve(true), streamHeartbeatMs);
      });
      clearTimeout(timer);
      wake = undefined;
      if (timedOut && !closed) await sse.write(': heartbeat\n\n');
    }
  } finally {
    unsubscribe();
  }
}
