import { describe, expect, it } from 'vitest';
import { parseFile } from '../analysis/javascript/ast.js';
import { buildFileIndex } from '../analysis/javascript/file-index.js';
import { extractTools } from '../analysis/javascript/index.js';
import type { ToolDefinition } from '../model.js';

function extract(text: string, path = 'src/index.ts'): ToolDefinition[] {
  const outcome = parseFile({ path, absPath: `/virtual/${path}`, role: 'source', size: text.length, text });
  if (!outcome.ok) throw new Error(outcome.message);
  return extractTools(buildFileIndex(outcome.parsed)).tools;
}

const byName = (tools: ToolDefinition[], name: string) => {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} in ${tools.map((t) => t.name).join(', ')}`);
  return tool;
};

describe('extractMcpSdk: McpServer.registerTool', () => {
  const tools = extract(`
    import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
    import { z } from 'zod';
    const PREFIX = 'Reads';
    const server = new McpServer({ name: 'files', version: '1' }, { instructions: 'Use ' + 'relative paths.' });
    server.registerTool('read_file', {
      title: 'Read file',
      description: \`\${PREFIX} a file\`,
      inputSchema: {
        path: z.string().describe('Relative path'),
        encoding: z.enum(['utf8', 'base64']).default('utf8'),
        name: z.string().regex(/^[a-z]+$/).optional(),
        homepage: z.string().url().optional(),
        filter: z.object({ glob: z.string() }).optional(),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    }, async ({ path }) => ({ content: [] }));
  `);

  it('reads title, description (resolved from constants) and annotations', () => {
    const tool = byName(tools, 'read_file');
    expect(tool).toMatchObject({ kind: 'tool', title: 'Read file', description: 'Reads a file', extractor: 'mcp-sdk' });
    expect(tool.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(tool.location).toMatchObject({ file: 'src/index.ts', line: 6 });
    expect(tool.handlerId).toMatch(/^src\/index\.ts:\d+$/);
  });

  it('reads zod parameters: description, enum, default, pattern, format, optional, nested objects', () => {
    const parameters = byName(tools, 'read_file').parameters;
    expect(parameters).toEqual([
      { name: 'path', type: 'string', description: 'Relative path', required: true },
      { name: 'encoding', type: 'string', enum: ['utf8', 'base64'], default: 'utf8', required: false },
      { name: 'name', type: 'string', pattern: '^[a-z]+$', required: false },
      { name: 'homepage', type: 'string', format: 'url', required: false },
      { name: 'filter', type: 'object', required: false },
    ]);
  });

  it('reads the server instructions', () => {
    expect(byName(tools, 'files')).toMatchObject({ kind: 'instructions', description: 'Use relative paths.' });
  });
});

describe('extractMcpSdk: McpServer.tool overloads', () => {
  const tools = extract(`
    server.tool('a', async () => ({ content: [] }));
    server.tool('b', 'Description of b', async () => ({ content: [] }));
    server.tool('c', { x: z.number() }, async ({ x }) => ({ content: [] }));
    server.tool('d', 'Description of d', { x: z.string().default('hi') }, async ({ x }) => ({ content: [] }));
    server.tool('e', { x: z.string() }, { destructiveHint: true }, async ({ x }) => ({ content: [] }));
    server.tool('f', 'Description of f', { x: z.boolean().optional() }, { readOnlyHint: true, title: 'F' }, async ({ x }) => ({ content: [] }));
    server.tool('g', 'Description of g', { idempotentHint: true }, async () => ({ content: [] }));
    function handleH(args) { return { content: [] }; }
    server.tool('h', 'Description of h', { y: z.string() }, handleH);
  `);

  it('finds every overload with its description, parameters and annotations', () => {
    expect(tools.map((t) => t.name)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
    expect(byName(tools, 'a')).toMatchObject({ parameters: [] });
    expect(byName(tools, 'a').description).toBeUndefined();
    expect(byName(tools, 'b')).toMatchObject({ description: 'Description of b', parameters: [] });
    expect(byName(tools, 'c').parameters).toEqual([{ name: 'x', type: 'number', required: true }]);
    expect(byName(tools, 'd')).toMatchObject({ description: 'Description of d', parameters: [{ name: 'x', default: 'hi', required: false }] });
    expect(byName(tools, 'e')).toMatchObject({ annotations: { destructiveHint: true }, parameters: [{ name: 'x' }] });
    expect(byName(tools, 'f')).toMatchObject({ annotations: { readOnlyHint: true, title: 'F' }, parameters: [{ name: 'x', type: 'boolean', required: false }] });
    expect(byName(tools, 'g')).toMatchObject({ annotations: { idempotentHint: true }, parameters: [] });
    expect(byName(tools, 'h').handlerId).toBeDefined();
  });
});

describe('extractMcpSdk: prompts and resources', () => {
  const tools = extract(`
    server.prompt('review', 'Review code', { code: z.string() }, ({ code }) => ({ messages: [] }));
    server.registerPrompt('summarise', { title: 'Summarise', description: 'Summarise text', argsSchema: { text: z.string() } }, ({ text }) => ({ messages: [] }));
    server.resource('config', 'config://app', async (uri) => ({ contents: [] }));
    server.registerResource('user', new ResourceTemplate('users://{id}', { list: undefined }), { title: 'User', description: 'A user profile' }, async (uri) => ({ contents: [] }));
  `);

  it('extracts prompts with their argument schemas and resources with URIs', () => {
    expect(byName(tools, 'review')).toMatchObject({ kind: 'prompt', description: 'Review code', parameters: [{ name: 'code', required: true }] });
    expect(byName(tools, 'summarise')).toMatchObject({ kind: 'prompt', title: 'Summarise', description: 'Summarise text' });
    expect(byName(tools, 'config')).toMatchObject({ kind: 'resource', uri: 'config://app' });
    expect(byName(tools, 'user')).toMatchObject({ kind: 'resource', uri: 'users://{id}', title: 'User', description: 'A user profile' });
  });
});

describe('extractMcpSdk: low-level Server', () => {
  it('follows the tools array through a constant and reads JSON-schema parameters', () => {
    const tools = extract(`
      const READ: Tool = {
        name: 'read',
        description: 'Read ' + 'something',
        inputSchema: {
          type: 'object',
          properties: {
            mode: { type: 'string', enum: ['fast', 'slow'], default: 'fast', description: 'How' },
            id: { type: 'string', pattern: '^[0-9]+$' },
          },
          required: ['id'],
        },
        annotations: { readOnlyHint: true },
      };
      const TOOLS = [READ, { name: 'write', description: 'Write', inputSchema: { type: 'object', properties: {} } }];
      server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
      server.setRequestHandler(CallToolRequestSchema, async (request) => { switch (request.params.name) { case 'read': return {}; } });
    `);
    expect(tools.map((t) => t.name)).toEqual(['read', 'write']);
    const read = byName(tools, 'read');
    expect(read).toMatchObject({ extractor: 'mcp-sdk-lowlevel', description: 'Read something', annotations: { readOnlyHint: true } });
    expect(read.parameters).toEqual([
      { name: 'mode', type: 'string', description: 'How', enum: ['fast', 'slow'], default: 'fast', required: false },
      { name: 'id', type: 'string', pattern: '^[0-9]+$', required: true },
    ]);
    expect(read.handlerId).toMatch(/^src\/index\.ts:\d+$/);
  });

  it('follows a function that returns the tools and zodToJsonSchema references', () => {
    const tools = extract(`
      const SearchSchema = z.object({ query: z.string().describe('Search terms'), limit: z.number().optional() });
      function listTools() {
        return [{ name: 'search', description: \`Search the index\`, inputSchema: zodToJsonSchema(SearchSchema) }];
      }
      server.setRequestHandler(ListToolsRequestSchema, async () => { return { tools: listTools() }; });
    `);
    expect(byName(tools, 'search')).toMatchObject({
      description: 'Search the index',
      parameters: [
        { name: 'query', description: 'Search terms', required: true },
        { name: 'limit', required: false },
      ],
    });
  });

  it('reads compiled CommonJS: types_js_1.ListToolsRequestSchema and (0, zod_1.z) chains', () => {
    const tools = extract(
      `"use strict";
      const types_js_1 = require("@modelcontextprotocol/sdk/types.js");
      const zod_1 = require("zod");
      const mcp_js_1 = require("@modelcontextprotocol/sdk/server/mcp.js");
      const server = new mcp_js_1.McpServer({ name: "x", version: "1" });
      server.tool("lookup", "Look " + "up", { key: (0, zod_1.z).string().describe("Key"), kind: zod_1.z.enum(["a", "b"]) }, async (args) => ({ content: [] }));
      srv.setRequestHandler(types_js_1.ListToolsRequestSchema, async () => ({ tools: [{ name: "legacy", description: "Legacy tool", inputSchema: { type: "object", properties: {} } }] }));
      `,
      'dist/index.js',
    );
    expect(byName(tools, 'lookup')).toMatchObject({
      description: 'Look up',
      parameters: [
        { name: 'key', description: 'Key', required: true },
        { name: 'kind', enum: ['a', 'b'], required: true },
      ],
    });
    expect(byName(tools, 'legacy')).toMatchObject({ extractor: 'mcp-sdk-lowlevel', description: 'Legacy tool' });
  });

  it('reads tool objects registered through a registry loop, once', () => {
    const tools = extract(`
      const navigateSchema = { name: 'navigate', description: 'Open a URL', inputSchema: z.object({ url: z.string().url() }) };
      const LISTED = [{ name: 'listed', description: 'Listed tool', inputSchema: { type: 'object', properties: {} } }];
      const registry = [{ schema: navigateSchema, handle: handleNavigate }];
      for (const tool of registry) server.tool(tool.schema.name, tool.schema.description, tool.schema.inputSchema.shape, (p) => tool.handle(p));
      server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: LISTED }));
    `);
    expect(tools.map((t) => t.name).sort()).toEqual(['listed', 'navigate']);
    expect(byName(tools, 'navigate')).toMatchObject({ description: 'Open a URL', parameters: [{ name: 'url', format: 'url', required: true }] });
  });

  it('reads esbuild output: import_zod.z chains', () => {
    const tools = extract(
      `var import_zod = require("zod");
      server.registerTool("convert", { description: "Convert units", inputSchema: { value: import_zod.z.number(), unit: import_zod.z.enum(["m", "ft"]).default("m") } }, async () => ({}));`,
      'dist/index.cjs',
    );
    expect(byName(tools, 'convert').parameters).toEqual([
      { name: 'value', type: 'number', required: true },
      { name: 'unit', type: 'string', enum: ['m', 'ft'], default: 'm', required: false },
    ]);
  });
});
