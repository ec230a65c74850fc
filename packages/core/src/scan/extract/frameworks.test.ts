import { describe, expect, it } from 'vitest';
import { javascriptAnalyzer } from '../analysis/javascript/index.js';
import type { SourceFile } from '../model.js';

async function analyze(files: Record<string, string>) {
  const sources: SourceFile[] = Object.entries(files).map(([path, text]) => ({ path, absPath: `/virtual/${path}`, role: 'source', size: text.length, text, language: 'typescript' }));
  return javascriptAnalyzer.analyze(sources, { mode: 'fast' });
}

describe('server frameworks whose tools were not recognised', () => {
  it('names the framework and the shapes looked for when a server yields no tool', async () => {
    const { diagnostics, tools } = await analyze({
      'src/plugins.ts': `export async function loadPlugins() { return (await import(process.env.PLUGIN_DIR + '/index.js')).default; }`,
      'src/server.ts': `
        import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
        import { loadPlugins } from './plugins.js';
        const server = new McpServer({ name: 'plugins', version: '1' });
        for (const plugin of await loadPlugins()) server[plugin.kind](plugin.id, plugin.options, plugin.run);
      `,
    });
    expect(tools).toEqual([]);
    expect(diagnostics).toEqual([
      {
        code: 'unrecognised-server-shape',
        framework: '@modelcontextprotocol/sdk',
        path: 'src/server.ts',
        detail: expect.stringContaining('no tool definition was recognised (looked for McpServer.registerTool/tool()'),
      },
    ]);
  });

  it('says nothing for a client, or once a tool is found', async () => {
    const client = await analyze({ 'src/client.ts': `import { Client } from '@modelcontextprotocol/sdk/client/index.js'; export const client = new Client({ name: 'c', version: '1' });` });
    expect(client.diagnostics).toEqual([]);
    // A stdio-to-HTTP proxy uses the SDK's server transport, not a server: it has no tools of its own.
    const proxy = await analyze({ 'dist/proxy.js': `const stdio_js_1 = require("@modelcontextprotocol/sdk/server/stdio.js"); exports.stdio = new stdio_js_1.StdioServerTransport();` });
    expect(proxy.diagnostics).toEqual([]);
    const server = await analyze({
      'src/tools/Ping.ts': `import { MCPTool } from 'mcp-framework'; export default class PingTool extends MCPTool { name = 'ping'; description = 'Ping'; schema = {}; async execute() { return 'pong'; } }`,
    });
    expect(server.diagnostics).toEqual([]);
  });
});
