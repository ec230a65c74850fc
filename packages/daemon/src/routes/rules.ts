import { ruleCatalog } from '@svc/core';
import { createRoute, z } from '@hono/zod-openapi';
import { createRouter, errorResponses, jsonContent } from '../openapi.js';

const catalogEntry = z
  .object({
    id: z.string(),
    title: z.string(),
    category: z.string(),
    severity: z.string(),
    description: z.string(),
    remediation: z.string(),
    cwe: z.array(z.string()),
    owasp: z.string().openapi({ description: 'OWASP MCP Top 10 id, e.g. MCP03' }),
    modes: z.array(z.string()).readonly(),
  })
  .openapi('RuleCatalogEntry');

const catalog = createRoute({
  method: 'get',
  path: '/api/v1/rules/catalog',
  summary: 'Live snapshot of the rule catalog',
  responses: {
    200: jsonContent(z.array(catalogEntry), 'Every rule, as bare data (spec 9.1)'),
    ...errorResponses('INTERNAL_ERROR'),
  },
});

export const ruleRoutes = createRouter().openapi(catalog, (c) => c.json(ruleCatalog(), 200));
