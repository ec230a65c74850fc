import { ServiceError, successEnvelope } from '@svc/core';
import { createRoute, z } from '@hono/zod-openapi';
import { countAnonymousRequest } from '../middleware/credential.js';
import { createRouter, envelope, errorResponses, jsonContent } from '../openapi.js';
import { REGISTRY_SOURCES } from '../store/registry.js';
import { toVersionJson, versionEntrySchema } from './registry.js';
import { versionChanges, versionChangesSchema } from './version-changes.js';

// Spec 4.4: an unversioned web route, so its success body is the envelope (DESIGN.md "Bodies"), unlike the
// /api/v1 registry record that carries the same versions list as bare data.

/** Versions compared with the one before them: the newest ones, which a reader of the history looks at first. */
const MAX_COMPARED = 20;

const versions = createRoute({
  method: 'get',
  path: '/versions',
  summary: 'Version history of a package',
  description: [
    'Every version of the package with a completed public scan, newest scan first: the latest scan of each version and how many public scans that version has. Private and unfinished scans never count.',
    `\`changes\` says what changed from the version listed after it (the one scanned before), as \`svc scan\` reports drift against an mcp.lock: tools, prompts and resources added, removed or changed (with a word diff of changed texts and what a schema gained or lost), and the findings the version has more of. It is \`null\` for the last version listed, and for the versions past the first ${MAX_COMPARED} (each comparison reads two stored reports).`,
    'Both `source` (npm, pypi, git) and `package` are required (400 INVALID_FIELD naming the field); a package without a completed public scan is 404 NOT_FOUND. No credential is needed or read; requests count per client address (8000 per 5 minutes, 429 window `ip_requests`).',
  ].join('\n\n'),
  middleware: [countAnonymousRequest] as const,
  request: {
    query: z.object({
      source: z.enum(REGISTRY_SOURCES, { error: `source must be one of ${REGISTRY_SOURCES.join(', ')}` }),
      package: z.string({ error: 'package is required' }).min(1, { error: 'package is required' }).max(300, { error: 'package is too long' }),
    }),
  },
  responses: {
    200: jsonContent(
      envelope(z.object({ source: z.enum(REGISTRY_SOURCES), package: z.string(), versions: z.array(versionEntrySchema.extend({ changes: versionChangesSchema.nullable() })) })),
      'The versions',
    ),
    ...errorResponses('INVALID_FIELD', 'NOT_FOUND', 'RATE_LIMITED', 'INTERNAL_ERROR'),
  },
});

export const versionRoutes = createRouter().openapi(versions, async (c) => {
  const { source, package: name } = c.req.valid('query');
  const { registry, scans } = c.get('services');
  const list = await registry.versions(source, name);
  if (list.length === 0) throw new ServiceError('NOT_FOUND', 'No completed public scan of this package.');
  const changes = await Promise.all(
    list.map(async (entry, index) => {
      const previous = list[index + 1];
      return previous && index < MAX_COMPARED ? ((await versionChanges(scans, previous.scanId, entry.scanId)) ?? null) : null;
    }),
  );
  return c.json(successEnvelope({ source, package: name, versions: list.map((entry, index) => ({ ...toVersionJson(entry), changes: changes[index] ?? null })) }), 200);
});
