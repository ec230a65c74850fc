/**
 * Well-known MCP packages, the names typosquatters imitate. Compiled (November 2025) from the official
 * modelcontextprotocol/servers repository README (reference and archived servers and their npm/PyPI names), the
 * SDK packages, and the most-installed community servers listed on the npm and PyPI registries and in the MCP
 * registry (registry.modelcontextprotocol.io). Extend it when a popular server appears; exact names here are never
 * reported, so adding a legitimate package can only remove false positives.
 */
export const KNOWN_NPM_PACKAGES: readonly string[] = [
  '@modelcontextprotocol/sdk',
  '@modelcontextprotocol/inspector',
  '@modelcontextprotocol/create-server',
  '@modelcontextprotocol/server-filesystem',
  '@modelcontextprotocol/server-memory',
  '@modelcontextprotocol/server-everything',
  '@modelcontextprotocol/server-sequential-thinking',
  '@modelcontextprotocol/server-github',
  '@modelcontextprotocol/server-gitlab',
  '@modelcontextprotocol/server-google-maps',
  '@modelcontextprotocol/server-slack',
  '@modelcontextprotocol/server-puppeteer',
  '@modelcontextprotocol/server-brave-search',
  '@modelcontextprotocol/server-postgres',
  '@modelcontextprotocol/server-redis',
  '@modelcontextprotocol/server-gdrive',
  '@modelcontextprotocol/server-aws-kb-retrieval',
  '@modelcontextprotocol/server-everart',
  '@playwright/mcp',
  '@upstash/context7-mcp',
  '@notionhq/notion-mcp-server',
  '@supabase/mcp-server-supabase',
  '@browsermcp/mcp',
  '@executeautomation/playwright-mcp-server',
  '@wonderwhy-er/desktop-commander',
  '@21st-dev/magic',
  '@stripe/mcp',
  '@sentry/mcp-server',
  '@heroku/mcp-server',
  '@agentdeskai/browser-tools-mcp',
  '@cloudflare/mcp-server-cloudflare',
  '@azure/mcp',
  '@benborla29/mcp-server-mysql',
  'chrome-devtools-mcp',
  'firecrawl-mcp',
  'tavily-mcp',
  'exa-mcp-server',
  'figma-developer-mcp',
  'mcp-remote',
  'mcp-server-kubernetes',
  'mcp-framework',
  'fastmcp',
];

export const KNOWN_PYPI_PACKAGES: readonly string[] = [
  'mcp',
  'fastmcp',
  'mcp-server-fetch',
  'mcp-server-git',
  'mcp-server-time',
  'mcp-server-sqlite',
  'mcp-server-sentry',
  'mcp-server-qdrant',
  'mcp-server-docker',
  'mcp-server-motherduck',
  'mcp-proxy',
  'mcpo',
  'mcp-atlassian',
  'awslabs.aws-documentation-mcp-server',
  'awslabs.core-mcp-server',
];

/**
 * Unscoped spellings people search for the official npm servers (`mcp-server-filesystem` for
 * `@modelcontextprotocol/server-filesystem`). Near misses of these are reported; the spellings themselves are not,
 * because community packages legitimately use them.
 */
export function unscopedAliases(): Map<string, string> {
  const aliases = new Map<string, string>();
  for (const name of KNOWN_NPM_PACKAGES) {
    const official = /^@modelcontextprotocol\/server-(.+)$/.exec(name);
    if (official) aliases.set(`mcp-server-${official[1]}`, name);
  }
  return aliases;
}
