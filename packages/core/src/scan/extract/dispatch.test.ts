import { describe, expect, it } from 'vitest';
import { parseFile } from '../analysis/javascript/ast.js';
import { buildFileIndex } from '../analysis/javascript/file-index.js';
import { extractTools } from '../analysis/javascript/index.js';

function extract(text: string) {
  const path = 'src/server.ts';
  const outcome = parseFile({ path, absPath: `/virtual/${path}`, role: 'source', size: text.length, text });
  if (!outcome.ok) throw new Error(outcome.message);
  return extractTools(buildFileIndex(outcome.parsed));
}

describe('dispatch tables inside a tools/call handler', () => {
  it('links each entry of a name-keyed table of functions or tool objects to its tool', () => {
    const { handlers, tools } = extract(`
      async function resize(args) { return args.width; }
      const registry = {
        resize_image: resize,
        crop_image: { description: 'Crop', handler: async ({ box }) => box },
        rotate_image: async function (args) { return args.angle; },
      };
      server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'resize_image', description: 'Resize', inputSchema: {} }] }));
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        const entry = registry[request.params.name];
        return typeof entry === 'function' ? entry(request.params.arguments) : entry.handler(request.params.arguments);
      });
    `);
    expect(handlers.map((handler) => [handler.tool.name, handler.argsParam])).toEqual([
      ['resize_image', 0],
      ['crop_image', 0],
      ['rotate_image', 0],
    ]);
    // The listed tool is the one the table's handler is linked to.
    expect(tools.find((tool) => tool.name === 'resize_image')?.handlerId).toBe(`src/server.ts:${handlers[0]!.node.start}`);
  });

  it('leaves tables of settings and lookups outside a dispatcher alone', () => {
    const { handlers } = extract(`
      const LIMITS = { small: 10, large: 100 };
      const formatters = { json: (value) => JSON.stringify(value), text: String };
      server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: 'text', text: String(LIMITS[request.params.arguments.size]) }] }));
      export function render(kind, value) { return formatters[kind](value); }
    `);
    expect(handlers).toEqual([]);
  });
});
