import { CATEGORIES, getRule, invalidField, RULES, SEVERITIES } from '@svc/core';
import { createRoute, z } from '@hono/zod-openapi';
import { createRouter, errorResponses, jsonContent } from '../openapi.js';
import type { Tally } from '../store/registry.js';
import { CREDENTIAL_NOTE, gradeDistributionSchema, PUBLIC_READ, PUBLIC_READ_ERRORS, PUBLIC_SECURITY } from './registry.js';
import { countsSchema } from '../scan-view.js';

// Ecosystem statistics (spec 4.5) over completed public scans only. Findings, grades and scores come from the
// latest scan of each registry package, so rescanning a package many times does not weigh it more.

const TOP_RULES = 10;

const stats = createRoute({
  method: 'get',
  path: '/api/v1/stats',
  summary: 'Ecosystem statistics',
  description: [
    '`packages_scanned`: registry packages (npm, pypi, git) with at least one completed public scan. `scans_completed`: completed public scans of every source, public directory, config and remote scans included. `rules_live`: rules in this daemon’s catalog (GET /api/v1/rules/catalog).',
    '`findings_by_severity`, `findings_by_category` and `grade_distribution` count the latest completed public scan of each registry package; every severity, category and grade is present, zero when unseen.',
    '`updated_at`: when the newest completed public scan finished (null before the first).',
    CREDENTIAL_NOTE,
  ].join('\n\n'),
  security: PUBLIC_SECURITY,
  middleware: [PUBLIC_READ] as const,
  responses: {
    200: jsonContent(
      z.object({
        packages_scanned: z.number().int(),
        scans_completed: z.number().int(),
        rules_live: z.number().int(),
        findings_by_severity: countsSchema,
        findings_by_category: z.record(z.string(), z.number().int()),
        grade_distribution: gradeDistributionSchema,
        updated_at: z.string().nullable(),
      }),
      'The statistics',
    ),
    ...errorResponses(...PUBLIC_READ_ERRORS),
  },
});

/** A date (`2026-01-01`, midnight UTC) or a date-time with a zone; anything else is refused, not guessed. */
const sinceSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/, { error: 'since must be an ISO 8601 date (2026-01-01) or date-time with a zone' })
  .refine((text) => Number.isFinite(Date.parse(text)), { error: 'since is not a real date' })
  .optional()
  .openapi({ description: 'Only scans completed at or after this instant; a bare date is midnight UTC' });

const tallyFields = { findings: z.number().int(), packages_affected: z.number().int() };

const stateOfMcp = createRoute({
  method: 'get',
  path: '/api/v1/stats/state-of-mcp',
  summary: 'Data for the state-of-MCP-security report',
  description: [
    'Computed from the latest completed public scan of each registry package (npm, pypi, git). With `since`, only scans completed at or after it are considered, so a package whose scans are all older drops out; without it, all data counts.',
    '`period.from` is `since` when given, otherwise the oldest of those latest scans; `period.to` is the newest (both null when there is no data).',
    '`share_with_critical_or_high` is the fraction (0–1, 4 decimals) of packages whose latest scan has at least one critical or high finding; `average_score` has one decimal (null without data).',
    `\`top_rules\`: the ${TOP_RULES} rules affecting most packages (ties: more findings, then rule id). Breakdowns are ordered by findings, most first.`,
    CREDENTIAL_NOTE,
  ].join('\n\n'),
  security: PUBLIC_SECURITY,
  middleware: [PUBLIC_READ] as const,
  request: { query: z.object({ since: sinceSchema }) },
  responses: {
    200: jsonContent(
      z.object({
        period: z.object({ from: z.string().nullable(), to: z.string().nullable(), since: z.string().nullable() }),
        packages_analysed: z.number().int(),
        packages_with_critical_or_high: z.number().int(),
        share_with_critical_or_high: z.number(),
        average_score: z.number().nullable(),
        grade_distribution: gradeDistributionSchema,
        severity_breakdown: z.array(z.object({ severity: z.string(), ...tallyFields })),
        category_breakdown: z.array(z.object({ category: z.string(), ...tallyFields })),
        top_rules: z.array(
          z.object({ rule_id: z.string(), title: z.string(), category: z.string(), severity: z.string().nullable(), packages_affected: z.number().int(), findings: z.number().int() }),
        ),
        generated_at: z.string(),
      }),
      'The report data',
    ),
    ...errorResponses('INVALID_FIELD', ...PUBLIC_READ_ERRORS),
  },
});

function totals(keys: readonly string[], tallies: Tally[]): Record<string, number> {
  const result = Object.fromEntries(keys.map((key) => [key, 0]));
  for (const tally of tallies) result[tally.key] = tally.findings;
  return result;
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

export const statsRoutes = createRouter()
  .openapi(stats, async (c) => {
    const { registry } = c.get('services');
    const [aggregate, scanTotals] = await Promise.all([registry.latestAggregate(), registry.scanTotals()]);
    return c.json(
      {
        packages_scanned: aggregate.packages,
        scans_completed: scanTotals.scans,
        rules_live: RULES.length,
        findings_by_severity: totals(SEVERITIES, aggregate.bySeverity) as z.infer<typeof countsSchema>,
        findings_by_category: totals(CATEGORIES, aggregate.byCategory),
        grade_distribution: aggregate.gradeDistribution,
        updated_at: scanTotals.updatedAt,
      },
      200,
    );
  })
  .openapi(stateOfMcp, async (c) => {
    const { since: sinceText } = c.req.valid('query');
    const { registry, clock } = c.get('services');
    const since = sinceText === undefined ? undefined : new Date(sinceText);
    if (since !== undefined && Number.isNaN(since.getTime())) throw invalidField('since', 'since is not a real date');
    const aggregate = await registry.latestAggregate(since === undefined ? {} : { since: since.toISOString() });
    const share = aggregate.packages === 0 ? 0 : round(aggregate.packagesWithCriticalOrHigh / aggregate.packages, 4);
    return c.json(
      {
        period: { from: since?.toISOString() ?? aggregate.from, to: aggregate.to, since: since?.toISOString() ?? null },
        packages_analysed: aggregate.packages,
        packages_with_critical_or_high: aggregate.packagesWithCriticalOrHigh,
        share_with_critical_or_high: share,
        average_score: aggregate.averageScore === null ? null : round(aggregate.averageScore, 1),
        grade_distribution: aggregate.gradeDistribution,
        severity_breakdown: aggregate.bySeverity.map((t) => ({ severity: t.key, findings: t.findings, packages_affected: t.packages })),
        category_breakdown: aggregate.byCategory.map((t) => ({ category: t.key, findings: t.findings, packages_affected: t.packages })),
        top_rules: aggregate.byRule.slice(0, TOP_RULES).map((rule) => {
          const known = getRule(rule.key);
          return {
            rule_id: rule.key,
            title: known?.meta.title ?? rule.key,
            category: rule.category,
            severity: known?.meta.severity ?? null,
            packages_affected: rule.packages,
            findings: rule.findings,
          };
        }),
        generated_at: clock().toISOString(),
      },
      200,
    );
  });
