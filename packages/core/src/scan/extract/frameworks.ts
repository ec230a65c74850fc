// The TypeScript/JavaScript MCP server frameworks the extractors read, by the module a server imports, with the
// shape each expects. A package that imports one of them and yields no tool has a shape the extractors did not
// recognise: it gets a diagnostic naming the framework and the shapes that were looked for, so the report can say
// that its tools were not analysed (never a clean verdict).
import type { FileIndex } from '../analysis/javascript/file-index.js';
import type { ExtractionDiagnostic, ToolDefinition } from '../model.js';

interface Framework {
  /** The import that makes a file a server of this framework (a client import does not). */
  module: RegExp;
  name: string;
  shapes: string;
}

const FRAMEWORKS: Framework[] = [
  {
    // The modules of the server classes, not the transports: a stdio-to-HTTP proxy imports only a transport.
    module: /^@modelcontextprotocol\/sdk\/server(\/(mcp|index)(\.js)?)?$/,
    name: '@modelcontextprotocol/sdk',
    shapes: 'McpServer.registerTool/tool(), Server.setRequestHandler(ListToolsRequestSchema | CallToolRequestSchema)',
  },
  {
    module: /^@modelcontextprotocol\/(server|node|express|hono)(\/|$)/,
    name: '@modelcontextprotocol/server',
    shapes: "registerTool/tool(), setRequestHandler('tools/list' | 'tools/call'), createMcpHandler(() => server)",
  },
  { module: /^fastmcp(\/|$)/, name: 'fastmcp', shapes: 'server.addTool({ name, description, parameters, execute })' },
  { module: /^mcp-framework(\/|$)/, name: 'mcp-framework', shapes: 'class … extends MCPTool { name; description; schema; execute() } in tools/' },
  { module: /^mcp-use\/server(\/|$)/, name: 'mcp-use', shapes: 'server.tool({ name, description, schema | inputs, cb })' },
  { module: /^(mcp-handler|agents\/mcp)(\/|$)/, name: 'mcp-handler', shapes: 'createMcpHandler((server) => server.tool(…) / registerTool(…))' },
];

/**
 * One diagnostic per framework imported by some file when no tool at all was extracted. Prompts, resources and
 * instructions alone do not silence it: the tools are what the handlers' dataflow starts from.
 */
export function unrecognisedShapes(indexes: Iterable<FileIndex>, tools: readonly ToolDefinition[]): ExtractionDiagnostic[] {
  if (tools.some((tool) => tool.kind === 'tool')) return [];
  const found = new Map<Framework, string>();
  for (const index of indexes) {
    for (const binding of index.imports.values()) {
      const framework = FRAMEWORKS.find((candidate) => candidate.module.test(binding.source));
      if (framework && !found.has(framework)) found.set(framework, index.parsed.file.path);
    }
  }
  return [...found].map(([framework, path]) => ({
    code: 'unrecognised-server-shape',
    framework: framework.name,
    path,
    detail: `imports ${framework.name} but no tool definition was recognised (looked for ${framework.shapes}); its tools were not analysed`,
  }));
}
