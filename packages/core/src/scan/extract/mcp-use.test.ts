import { describe, expect, it } from 'vitest';
import { parseFile } from '../analysis/javascript/ast.js';
import { buildFileIndex } from '../analysis/javascript/file-index.js';
import { extractTools } from '../analysis/javascript/index.js';

function extract(text: string) {
  const path = 'src/index.ts';
  const outcome = parseFile({ path, absPath: `/virtual/${path}`, role: 'source', size: text.length, text });
  if (!outcome.ok) throw new Error(outcome.message);
  return extractTools(buildFileIndex(outcome.parsed));
}

describe('mcp-use definitions', () => {
  const { tools, handlers } = extract(`
    import { MCPServer } from 'mcp-use/server';
    const server = new MCPServer({ name: 'demo', version: '1.0.0' });
    server.tool({ name: 'greet', description: 'Greets a person', inputs: [{ name: 'who', type: 'string', required: true }], cb: async ({ who }) => 'Hello ' + who });
    server.tool({ name: 'sum', title: 'Sum', description: 'Adds numbers', schema: z.object({ a: z.number(), b: z.number().optional() }) }, async ({ a, b }, ctx) => String(a + (b ?? 0)));
    server.prompt({ name: 'intro', description: 'Introduce yourself', args: [{ name: 'name', required: true }], cb: async ({ name }) => name });
    server.resource({ uri: 'config://app', name: 'app-config', description: 'The configuration', readCallback: async () => '{}' });
    server.tool({ name: 'no_callback', description: 'A definition without a callback is not registered here' });
  `);

  it('reads tools, prompts and resources with their descriptions and parameters', () => {
    expect(tools.map((tool) => [tool.kind, tool.name, tool.description, tool.parameters.map((parameter) => `${parameter.name}${parameter.required ? '' : '?'}`)])).toEqual([
      ['tool', 'greet', 'Greets a person', ['who']],
      ['tool', 'sum', 'Adds numbers', ['a', 'b?']],
      ['prompt', 'intro', 'Introduce yourself', ['name']],
      ['resource', 'app-config', 'The configuration', []],
    ]);
    expect(tools.find((tool) => tool.name === 'sum')).toMatchObject({ title: 'Sum', extractor: 'mcp-use' });
    expect(tools.find((tool) => tool.kind === 'resource')?.uri).toBe('config://app');
  });

  it('links the callback (second argument or `cb`) with the input as first parameter', () => {
    expect(handlers.map((handler) => [handler.tool.name, handler.argsParam])).toEqual([
      ['greet', 0],
      ['sum', 0],
      ['intro', 0],
      ['app-config', -1],
    ]);
  });
});
