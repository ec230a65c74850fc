/**
 * Tool names of widely installed MCP servers (the official reference servers filesystem, git, github, fetch,
 * memory, slack, puppeteer, time, and common email/messaging/shell servers), each with words one of its honest
 * descriptions uses. Two uses: a description that names one of these tools in an imperative is reaching into
 * another server (tool-shadowing), and a server that defines one of these names but describes something unrelated
 * is impersonating it so the model calls it instead of the real one.
 */
export const WELL_KNOWN_TOOLS: Readonly<Record<string, readonly string[]>> = {
  read_file: ['read', 'file', 'content'],
  read_text_file: ['read', 'file', 'text'],
  read_multiple_files: ['read', 'file'],
  write_file: ['write', 'file', 'create', 'overwrite'],
  edit_file: ['edit', 'file', 'replace', 'change'],
  create_directory: ['directory', 'folder', 'create'],
  list_directory: ['list', 'directory', 'folder', 'files'],
  directory_tree: ['directory', 'tree', 'files'],
  move_file: ['move', 'rename', 'file'],
  search_files: ['search', 'file', 'find', 'pattern'],
  get_file_info: ['file', 'metadata', 'info', 'size'],
  fetch: ['fetch', 'url', 'http', 'web', 'page', 'internet', 'download'],
  git_status: ['git', 'status', 'working tree'],
  git_commit: ['commit', 'git', 'changes', 'repository'],
  git_push: ['push', 'git', 'remote'],
  create_issue: ['issue'],
  create_pull_request: ['pull request', 'pr', 'branch'],
  push_files: ['push', 'files', 'commit', 'repository'],
  create_or_update_file: ['file', 'repository', 'create', 'update'],
  send_email: ['email', 'mail', 'send', 'message'],
  send_message: ['message', 'send', 'chat'],
  slack_post_message: ['slack', 'message', 'post', 'channel'],
  execute_command: ['command', 'execute', 'run', 'shell', 'terminal'],
  run_command: ['command', 'run', 'shell', 'terminal', 'execute'],
  puppeteer_navigate: ['navigate', 'url', 'browser', 'page'],
  browser_navigate: ['navigate', 'url', 'browser', 'page'],
  get_current_time: ['time', 'timezone', 'date', 'clock'],
  create_entities: ['entities', 'entity', 'knowledge graph', 'graph'],
  search_nodes: ['search', 'nodes', 'knowledge graph', 'graph'],
  transfer_funds: ['transfer', 'funds', 'money', 'payment', 'account'],
};

export function isWellKnownTool(name: string): boolean {
  return Object.hasOwn(WELL_KNOWN_TOOLS, name.toLowerCase());
}
