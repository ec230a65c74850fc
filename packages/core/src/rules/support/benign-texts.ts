// Descriptions paraphrased from widely used MCP servers (the official reference servers: filesystem, fetch, git,
// memory, github, slack, puppeteer, time, sequential-thinking, brave-search; firecrawl), used by the rule tests as
// the benign half of their tables: every text rule must leave them alone. The last entries are texts that once
// produced false positives when the rules ran over the published packages of these servers.
import type { ToolDefinition } from '../../scan/model.js';
import { tool } from './test-context.js';

export const BENIGN_TOOLS: ToolDefinition[] = [
  tool(
    'read_file',
    'Read the complete contents of a file from the file system. Handles various text encodings and provides detailed ' +
      'error messages if the file cannot be read. Use this tool when you need to examine the contents of a single ' +
      'file. Only works within allowed directories.',
    [{ name: 'path', description: 'Path of the file to read' }],
  ),
  tool(
    'write_file',
    'Create a new file or completely overwrite an existing file with new content. Use with caution as it will ' +
      'overwrite existing files without warning. Handles text content with proper encoding. Only works within allowed ' +
      'directories.',
    [
      { name: 'path', description: 'Path of the file to write' },
      { name: 'content', description: 'The full content to write' },
    ],
  ),
  tool(
    'list_allowed_directories',
    'Returns the list of directories that this server is allowed to access. Use this to understand which ' +
      'directories are available before trying to access files.',
  ),
  tool(
    'fetch',
    'Fetches a URL from the internet and optionally extracts its contents as markdown.\n\nAlthough originally you did ' +
      'not have internet access, and were advised to refuse and tell the user this, this tool now grants you internet ' +
      'access. Now you can fetch the most up-to-date information and let the user know that.',
    [
      { name: 'url', description: 'URL to fetch', format: 'uri' },
      { name: 'max_length', type: 'number', description: 'Maximum number of characters to return.', required: false },
      { name: 'raw', type: 'boolean', description: 'Get the actual HTML content of the requested page, without simplification.', required: false },
    ],
  ),
  tool('git_status', 'Shows the working tree status', [{ name: 'repo_path', description: 'Path to the Git repository' }]),
  tool('git_commit', 'Records changes to the repository', [
    { name: 'repo_path' },
    { name: 'message', description: 'Commit message' },
  ]),
  tool(
    'create_entities',
    'Create multiple new entities in the knowledge graph',
    [{ name: 'entities', type: 'array', description: 'An array of entities, each with a name, an entity type and observations' }],
  ),
  tool(
    'create_or_update_file',
    'Create or update a single file in a GitHub repository',
    [
      { name: 'owner', description: 'Repository owner (username or organization)' },
      { name: 'repo', description: 'Repository name' },
      { name: 'path', description: 'Path where to create/update the file' },
      { name: 'content', description: 'Content of the file' },
      { name: 'sha', description: 'SHA of the file being replaced (required when updating existing files)', required: false },
    ],
  ),
  tool(
    'slack_post_message',
    'Post a new message to a Slack channel',
    [
      { name: 'channel_id', description: 'The ID of the channel to post to' },
      { name: 'text', description: 'The message text to post' },
    ],
  ),
  tool(
    'puppeteer_navigate',
    'Navigate to a URL',
    [
      { name: 'url', description: 'URL to navigate to' },
      { name: 'launchOptions', type: 'object', description: 'PuppeteerJS LaunchOptions. Default null. If changed and not null, browser restarts. Example: { headless: true, args: [\'--no-sandbox\'] }', required: false },
      { name: 'allowDangerous', type: 'boolean', description: 'Allow dangerous LaunchOptions that reduce security. When false, dangerous args like --no-sandbox will throw errors. Default false.', required: false },
    ],
  ),
  tool(
    'get_current_time',
    'Get current time in a specific timezones. Important: all times are returned in ISO 8601; dates are UTC unless a ' +
      'timezone is given.',
    [{ name: 'timezone', description: "IANA timezone name (e.g., 'America/New_York', 'Europe/London'). Use 'UTC' as local timezone if no timezone provided by the user." }],
  ),
  tool(
    'sequentialthinking',
    'A detailed tool for dynamic and reflective problem-solving through thoughts.\nWhen to use this tool:\n- Breaking ' +
      'down complex problems into steps\n- Planning and design with room for revision\nYou should:\n1. Start with an ' +
      'initial estimate of needed thoughts, but be ready to adjust\n2. Feel free to question or revise previous thoughts\n' +
      '3. Only set next_thought_needed to false when truly done and a satisfactory answer is reached',
    [
      { name: 'thought', description: 'Your current thinking step' },
      { name: 'nextThoughtNeeded', type: 'boolean', description: 'Whether another thought step is needed' },
    ],
  ),
  tool(
    'brave_web_search',
    'Performs a web search using the Brave Search API, ideal for general queries, news, articles, and online content. ' +
      'Use this for broad information gathering, recent events, or when you need diverse web sources. Supports ' +
      'pagination, content filtering, and freshness controls. Maximum 20 results per request, with offset for pagination.',
    [
      { name: 'query', description: 'Search query (max 400 chars, 50 words)' },
      { name: 'count', type: 'number', description: 'Number of results (1-20, default 10)', required: false },
    ],
  ),
  tool(
    'get_secret',
    'Retrieves a secret value from AWS Secrets Manager by its name. Requires AWS credentials configured in the ' +
      'environment. Returns the secret string.',
    [{ name: 'secret_id', description: 'The name or ARN of the secret' }],
  ),
  tool(
    'connect_database',
    'Connects to a PostgreSQL database. The password is read from the PGPASSWORD environment variable when not given.',
    [
      { name: 'host', description: 'Database host' },
      { name: 'password', description: 'Password for the database user', required: false },
    ],
  ),
  tool(
    'search_notes',
    'Search the user\'s notes. IMPORTANT: always call list_notebooks first so you know which notebook ids exist.',
    [
      { name: 'query', description: 'Text to search for' },
      { name: 'context', description: 'Additional context for the search, such as the topic being discussed (optional)', required: false },
    ],
  ),
  tool(
    'submit_feedback',
    'Submits product feedback written by the user to the vendor\'s issue tracker.',
    [{ name: 'feedback', description: 'The feedback text the user asked to submit' }],
  ),
  tool(
    'encode_image',
    'Returns the image as base64-encoded PNG data, for example iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ (truncated). ' +
      'The sha256 of the file is also returned, e.g. 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.',
    [{ name: 'path', description: 'Path of the image' }],
  ),
  tool(
    'search_issues',
    'Search issues with a query string; special characters must be URL-encoded (e.g. %20 for a space).',
    [{ name: 'q', description: 'Query, e.g. repo%3Aowner%2Fname' }],
  ),
  tool('greet', 'Says hello in many languages: \u{1F44B} Hello! \u{1F468}\u200D\u{1F469}\u200D\u{1F467} Family greeting. \u092E\u0948\u0902\u200C\u0928\u0947 (Hindi with ZWNJ). \u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F} England. \u2705 Done.', [
    { name: 'name', description: 'Who to greet' },
  ]),
  {
    ...tool('instructions', 'This server provides access to Jira. Always confirm with the user before creating or deleting issues.', [], 'instructions'),
  },
  tool('slack_get_channel_history', 'Get recent messages from a channel', [
    { name: 'channel_id', description: 'The ID of the channel' },
    { name: 'limit', type: 'number', description: 'Number of messages to retrieve (default 10)', required: false },
  ]),
  tool(
    'firecrawl_map',
    'Map a website to discover all indexed URLs on the site.\n**Common mistakes:** Using crawl to discover URLs instead of ' +
      'map; jumping straight to firecrawl_agent when scrape fails instead of using map first to find the right page.',
    [{ name: 'url', description: 'Starting URL for URL discovery' }],
  ),
  tool(
    'firecrawl_monitor_create',
    'Create a monitor that re-runs searches on a schedule.\n- `queries`: one or more search queries (1-12) to monitor instead of fixed URLs.',
    [{ name: 'queries', type: 'array', description: 'Search queries to monitor' }],
  ),
  tool('puppeteer_screenshot', 'Take a screenshot of the current page or a specific element', [
    { name: 'name', description: 'Name for the screenshot' },
    { name: 'encoded', type: 'boolean', description: 'If true, capture the screenshot as a base64-encoded data URI (as text) instead of binary image content. Default false.', required: false },
  ]),
  tool('git_diff', 'Shows differences between branches or commits', [
    { name: 'repo_path', description: 'Path to the Git repository' },
    { name: 'target', description: 'Target branch or commit to compare with' },
  ]),
];
