import { getRule, invalidField, ServiceError, SEVERITIES, type Severity } from '@svc/core';
import { createRoute, z } from '@hono/zod-openapi';
import { optionalCredential } from '../middleware/credential.js';
import { countsSchema } from '../scan-view.js';
import { API_KEY_SECURITY, createRouter, errorResponses, jsonContent } from '../openapi.js';
import {
  GRADES,
  REGISTRY_SORTS,
  REGISTRY_SOURCES,
  type PublicScanSummary,
  type RegistryEntry,
  type RegistrySource,
  type VersionEntry,
} from '../store/registry.js';
import { decodeSignedCursor, encodeSignedCursor, pageQuery } from './cursor.js';
import { versionChanges, versionChangesSchema } from './version-changes.js';

// The public v1 data routes (spec 4.5). Bodies are bare data (spec 9.1); every number comes from completed public
// scans only, so nothing here can reveal a private or unfinished scan or who ran a scan.

/** Anonymous or any key: a key, when sent, must hold registry:read (spec 5.2) and counts toward the request caps. */
export const PUBLIC_READ = optionalCredential('registry:read');
/** Documented as optional: no security requirement, or an API key / session. */
export const PUBLIC_SECURITY = [{}, ...API_KEY_SECURITY];
export const PUBLIC_READ_ERRORS = ['UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED', 'INTERNAL_ERROR'] as const;
export const CREDENTIAL_NOTE =
  'No credential is needed. A credential that is sent is checked: an invalid one is 401, an API key without `registry:read` (or the umbrella `scan:read`/`scan:write`) is 403, and a valid one counts toward the per-user request cap and gets X-RateLimit-* headers.';

const TOP_FINDINGS = 10;

// ─── Shapes ─────────────────────────────────────────────────────────────────────────────────────

export const gradeDistributionSchema = z.object(Object.fromEntries(GRADES.map((grade) => [grade, z.number().int()])) as Record<(typeof GRADES)[number], z.ZodNumber>);

export const registryEntrySchema = z
  .object({
    source: z.enum(REGISTRY_SOURCES),
    package: z.string(),
    version: z.string().nullable().openapi({ description: 'Version of the latest scan (the most recently completed, not the highest version number)' }),
    scan_id: z.string(),
    mode: z.enum(['fast', 'deep']),
    score: z.number().int(),
    grade: z.string(),
    counts: countsSchema,
    findings_count: z.number().int(),
    tools_count: z.number().int(),
    scanned_at: z.string().openapi({ description: 'When that scan completed (ISO 8601)' }),
    scans: z.number().int().openapi({ description: 'Completed public scans of this package, all versions' }),
  })
  .openapi('RegistryEntry');

export function toEntryJson(entry: RegistryEntry): z.infer<typeof registryEntrySchema> {
  return {
    source: entry.source,
    package: entry.package,
    version: entry.version,
    scan_id: entry.scanId,
    mode: entry.mode,
    score: entry.score,
    grade: entry.grade,
    counts: entry.counts,
    findings_count: entry.findingsCount,
    tools_count: entry.toolsCount,
    scanned_at: entry.scannedAt,
    scans: entry.scans,
  };
}

export const versionEntrySchema = z
  .object({
    version: z.string().nullable(),
    scan_id: z.string().openapi({ description: 'The latest completed public scan of this version' }),
    score: z.number().int(),
    grade: z.string(),
    scanned_at: z.string(),
    scans: z.number().int().openapi({ description: 'Completed public scans of this version' }),
  })
  .openapi('VersionEntry');

export function toVersionJson(entry: VersionEntry): z.infer<typeof versionEntrySchema> {
  return { version: entry.version, scan_id: entry.scanId, score: entry.score, grade: entry.grade, scanned_at: entry.scannedAt, scans: entry.scans };
}

const recentScanSchema = z
  .object({
    id: z.string(),
    source: z.string().nullable().openapi({ description: 'npm, pypi, git, directory, config or remote' }),
    package: z.string().nullable(),
    version: z.string().nullable(),
    mode: z.enum(['fast', 'deep']),
    score: z.number().int(),
    grade: z.string(),
    counts: countsSchema,
    findings_count: z.number().int(),
    tools_count: z.number().int(),
    finished_at: z.string(),
  })
  .openapi('RecentScan');

function toRecentJson(scan: PublicScanSummary): z.infer<typeof recentScanSchema> {
  return {
    id: scan.scanId,
    source: scan.source,
    package: scan.package,
    version: scan.version,
    mode: scan.mode,
    score: scan.score,
    grade: scan.grade,
    counts: scan.counts,
    findings_count: scan.findingsCount,
    tools_count: scan.toolsCount,
    finished_at: scan.scannedAt,
  };
}

// The same limit as the other lists (1–100, default 20).
const limitSchema = pageQuery.shape.limit;

const cursorSchema = pageQuery.shape.cursor;

const sourceSchema = z.enum(REGISTRY_SOURCES, { error: `source must be one of ${REGISTRY_SOURCES.join(', ')}` });

const registryPositionSchema = z.object({ scannedAt: z.string(), score: z.number(), source: z.string(), package: z.string() });
const recentPositionSchema = z.object({ finishedAt: z.string(), id: z.string() });

function page<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable().openapi({ description: 'null on the last page' }) });
}

// ─── Routes ─────────────────────────────────────────────────────────────────────────────────────

const listRegistry = createRoute({
  method: 'get',
  path: '/api/v1/registry',
  summary: 'Browse the public registry',
  description: [
    'One entry per package (source + name) that has at least one completed public scan, summarising its latest such scan.',
    'Only npm, pypi and git scans are registry entries; public directory, config and remote scans are not (they do appear in /api/v1/scans/recent and the scan totals of /api/v1/stats).',
    '`q` is a case-insensitive substring of the package name, taken literally (`%` and `_` are not wildcards). `grade` filters on the latest scan’s grade.',
    'Sorts: `recent` (default; latest scan newest first), `name` (package name in byte order), `best` (highest score first), `worst` (lowest score first); ties are broken by name, then source.',
    'Pagination is by keyset: `next_cursor` holds the sort position of the last item, so pages neither repeat nor skip entries while new scans arrive (a package rescanned meanwhile moves to its new position). A cursor is bound to its sort: a malformed, altered or other-sort cursor is 400 INVALID_FIELD (field `cursor`). Filters may change between pages.',
    CREDENTIAL_NOTE,
  ].join('\n\n'),
  security: PUBLIC_SECURITY,
  middleware: [PUBLIC_READ] as const,
  request: {
    query: z.object({
      source: sourceSchema.optional(),
      q: z.string().max(200, { error: 'q may have at most 200 characters' }).optional(),
      grade: z.enum(GRADES, { error: `grade must be one of ${GRADES.join(', ')}` }).optional(),
      sort: z.enum(REGISTRY_SORTS, { error: `sort must be one of ${REGISTRY_SORTS.join(', ')}` }).default('recent'),
      limit: limitSchema,
      cursor: cursorSchema,
    }),
  },
  responses: {
    200: jsonContent(page(registryEntrySchema), 'A page of registry entries'),
    ...errorResponses('INVALID_FIELD', ...PUBLIC_READ_ERRORS),
  },
});

const registryRecordSchema = registryEntrySchema
  .extend({
    versions: z.array(versionEntrySchema).openapi({ description: 'Every version with a completed public scan, newest scan first' }),
    top_findings: z
      .array(z.object({ rule_id: z.string(), title: z.string(), category: z.string(), severity: z.enum(SEVERITIES as readonly [Severity, ...Severity[]]), count: z.number().int() }))
      .openapi({ description: `Findings of the latest scan grouped by rule and severity: most severe first, then most frequent; at most ${TOP_FINDINGS}` }),
  })
  .openapi('RegistryRecord');

const recordDescription = [
  'The latest completed public scan of the package, every version with a completed public scan, and the top findings of the latest scan.',
  'A scoped name may be sent URL-encoded (`/api/v1/registry/npm/%40scope%2Fname`) or as two path segments (`/api/v1/registry/npm/@scope/name`).',
  'A package without a completed public scan is 404 NOT_FOUND; an unknown source is 400 INVALID_FIELD (field `source`).',
  CREDENTIAL_NOTE,
].join('\n\n');

const recordRequest = { params: z.object({ source: sourceSchema, package: z.string().min(1) }) };
const recordResponses = {
  200: jsonContent(registryRecordSchema, 'The registry record'),
  ...errorResponses('INVALID_FIELD', 'NOT_FOUND', ...PUBLIC_READ_ERRORS),
};

// Hono's `{.+}` lets the package take the rest of the path (two segments for `@scope/name`); the document shows
// the plain `{package}` path, registered separately below, because `{package{.+}}` is not an OpenAPI template.
const getRecord = createRoute({
  method: 'get',
  path: '/api/v1/registry/{source}/{package{.+}}',
  hide: true,
  middleware: [PUBLIC_READ] as const,
  request: recordRequest,
  responses: recordResponses,
});

const recentScans = createRoute({
  method: 'get',
  path: '/api/v1/scans/recent',
  summary: 'Recently completed public scans',
  description: [
    'Completed public scans of every source (registry packages, and public directory, config or remote scans), newest first. Who ran a scan is never shown.',
    'Keyset pagination on (finished_at, id) with `next_cursor`; a malformed, altered or foreign cursor is 400 INVALID_FIELD (field `cursor`).',
    CREDENTIAL_NOTE,
  ].join('\n\n'),
  security: PUBLIC_SECURITY,
  middleware: [PUBLIC_READ] as const,
  request: { query: z.object({ limit: limitSchema, cursor: cursorSchema }) },
  responses: {
    200: jsonContent(page(recentScanSchema), 'A page of scans'),
    ...errorResponses('INVALID_FIELD', ...PUBLIC_READ_ERRORS),
  },
});

// ─── Compare ────────────────────────────────────────────────────────────────────────────────────

export interface PackageSpec {
  source: RegistrySource;
  name: string;
  version?: string;
}

const MIN_COMPARE = 2;
const MAX_COMPARE = 5;

/** `source:name` or `source:name@version`; the version `@` is the last one not at the start (scoped npm names). */
export function parsePackageList(text: string): PackageSpec[] {
  const invalid = (message: string) => invalidField('packages', message);
  const parts = text.split(',').map((part) => part.trim());
  if (parts.length < MIN_COMPARE || parts.length > MAX_COMPARE) {
    throw invalid(`packages must list ${MIN_COMPARE} to ${MAX_COMPARE} comma-separated entries like npm:name or npm:@scope/name@1.2.3.`);
  }
  const specs = parts.map((part) => {
    const colon = part.indexOf(':');
    const source = part.slice(0, colon);
    if (colon <= 0 || !(REGISTRY_SOURCES as readonly string[]).includes(source)) {
      throw invalid(`"${part}" must start with one of ${REGISTRY_SOURCES.map((s) => `${s}:`).join(', ')}.`);
    }
    const rest = part.slice(colon + 1);
    const at = rest.lastIndexOf('@');
    const name = at > 0 ? rest.slice(0, at) : rest;
    const version = at > 0 ? rest.slice(at + 1) : undefined;
    if (name === '' || version === '') throw invalid(`"${part}" needs a package name (and a version after @, if any).`);
    return { source: source as RegistrySource, name, ...(version === undefined ? {} : { version }) };
  });
  const seen = new Set<string>();
  for (const spec of specs) {
    const id = specLabel(spec);
    if (seen.has(id)) throw invalid(`"${id}" is listed twice.`);
    seen.add(id);
  }
  return specs;
}

export function specLabel(spec: PackageSpec): string {
  return `${spec.source}:${spec.name}${spec.version === undefined ? '' : `@${spec.version}`}`;
}

const compare = createRoute({
  method: 'get',
  path: '/api/v1/compare',
  summary: 'Compare packages side by side',
  description: [
    `\`packages\` lists ${MIN_COMPARE}–${MAX_COMPARE} comma-separated entries \`source:name\` or \`source:name@version\` (source npm, pypi or git; e.g. \`npm:a,npm:@s/b@1.2.0\`). A wrong count, unknown source, empty name or repeated entry is 400 INVALID_FIELD (field \`packages\`).`,
    '`items` follows the requested order: the registry entry of the package (its latest completed public scan, or the latest of that version when one is given), or `null` when there is none. A package never scanned publicly does not fail the request: it is `null` in `items` and listed in `missing`, so one unknown name does not hide the others.',
    '`scans` is the package’s total number of completed public scans, also when a version is given.',
    '`changes` compares versions of one package listed side by side: for each entry whose package appears earlier in the list (another version of it), what changed from that earlier entry to this one: items added, removed or changed (with word diffs) and the findings it has more of, as `svc scan` reports drift against an mcp.lock. Empty when no package is listed twice.',
    CREDENTIAL_NOTE,
  ].join('\n\n'),
  security: PUBLIC_SECURITY,
  middleware: [PUBLIC_READ] as const,
  request: { query: z.object({ packages: z.string({ error: 'packages is required, e.g. npm:a,npm:b' }).max(2000, { error: 'packages is too long' }) }) },
  responses: {
    200: jsonContent(
      z.object({
        requested: z.array(z.string()).openapi({ description: 'The entries as parsed, in order' }),
        items: z.array(registryEntrySchema.nullable()),
        missing: z.array(z.string()).openapi({ description: 'The requested entries without a completed public scan' }),
        changes: z.array(versionChangesSchema.extend({ from: z.string(), to: z.string() })),
      }),
      'The packages side by side',
    ),
    ...errorResponses('INVALID_FIELD', ...PUBLIC_READ_ERRORS),
  },
});

export const registryRoutes = createRouter()
  .openapi(listRegistry, async (c) => {
    const { source, q, grade, sort, limit, cursor } = c.req.valid('query');
    const { registry, cursorKey } = c.get('services');
    const kind = `registry:${sort}`;
    const after = cursor === undefined ? undefined : decodeSignedCursor(cursorKey, kind, cursor, registryPositionSchema);
    const result = await registry.list({
      sort,
      limit,
      ...(source === undefined ? {} : { source }),
      ...(q === undefined ? {} : { q }),
      ...(grade === undefined ? {} : { grade }),
      ...(after === undefined ? {} : { after }),
    });
    return c.json({ items: result.items.map(toEntryJson), next_cursor: result.next === undefined ? null : encodeSignedCursor(cursorKey, kind, result.next) }, 200);
  })
  .openapi(getRecord, async (c) => {
    const { source, package: name } = c.req.valid('param');
    const { registry } = c.get('services');
    const entry = await registry.find(source, name);
    if (entry === undefined) throw new ServiceError('NOT_FOUND', 'No completed public scan of this package.');
    const [versions, findings] = await Promise.all([registry.versions(source, name), registry.topFindings(entry.scanId, TOP_FINDINGS)]);
    return c.json(
      {
        ...toEntryJson(entry),
        versions: versions.map(toVersionJson),
        top_findings: findings.map((finding) => ({
          rule_id: finding.ruleId,
          title: getRule(finding.ruleId)?.meta.title ?? finding.ruleId,
          category: finding.category,
          severity: finding.severity,
          count: finding.count,
        })),
      },
      200,
    );
  })
  .openapi(recentScans, async (c) => {
    const { limit, cursor } = c.req.valid('query');
    const { registry, cursorKey } = c.get('services');
    const after = cursor === undefined ? undefined : decodeSignedCursor(cursorKey, 'recent', cursor, recentPositionSchema);
    const result = await registry.recent({ limit, ...(after === undefined ? {} : { after }) });
    return c.json({ items: result.items.map(toRecentJson), next_cursor: result.next === undefined ? null : encodeSignedCursor(cursorKey, 'recent', result.next) }, 200);
  })
  .openapi(compare, async (c) => {
    const specs = parsePackageList(c.req.valid('query').packages);
    const { registry, scans } = c.get('services');
    const entries = await Promise.all(specs.map((spec) => registry.find(spec.source, spec.name, spec.version)));
    // Each entry against the nearest earlier entry of the same package, when both were scanned and are not one scan.
    const pairs = specs.flatMap((spec, i) => {
      const j = specs.findLastIndex((other, k) => k < i && other.source === spec.source && other.name === spec.name);
      const [from, to] = [entries[j], entries[i]];
      return j >= 0 && from && to && from.scanId !== to.scanId ? [{ from: specLabel(specs[j]!), to: specLabel(spec), fromId: from.scanId, toId: to.scanId }] : [];
    });
    const changes = await Promise.all(
      pairs.map(async ({ from, to, fromId, toId }) => {
        const found = await versionChanges(scans, fromId, toId);
        return found && { from, to, ...found };
      }),
    );
    return c.json(
      {
        requested: specs.map(specLabel),
        items: entries.map((entry) => (entry === undefined ? null : toEntryJson(entry))),
        missing: specs.filter((_, i) => entries[i] === undefined).map(specLabel),
        changes: changes.filter((change) => change !== undefined),
      },
      200,
    );
  });

registryRoutes.openAPIRegistry.registerPath({
  method: 'get',
  path: '/api/v1/registry/{source}/{package}',
  summary: 'A single registry record',
  description: recordDescription,
  security: PUBLIC_SECURITY,
  request: recordRequest,
  responses: recordResponses,
});
