import { describe, expect, it } from 'vitest';
import { parseFile } from '../analysis/javascript/ast.js';
import { buildFileIndex } from '../analysis/javascript/file-index.js';
import { extractTools } from '../analysis/javascript/index.js';

function extract(text: string, path = 'src/tools/Tool.ts') {
  const outcome = parseFile({ path, absPath: `/virtual/${path}`, role: 'source', size: text.length, text });
  if (!outcome.ok) throw new Error(outcome.message);
  return extractTools(buildFileIndex(outcome.parsed));
}

describe('class tools (mcp-framework and look-alikes)', () => {
  it('reads class fields, the field-map schema and links execute as the handler', () => {
    const { tools, handlers } = extract(`
      import { MCPTool } from 'mcp-framework';
      import { z } from 'zod';
      const PREFIX = 'Convert';
      class ConvertTool extends MCPTool<{ amount: number; to?: string }> {
        name = 'convert_currency';
        description = \`\${PREFIX} an amount between currencies\`;
        schema = {
          amount: { type: z.number(), description: 'Amount in the source currency' },
          to: { type: z.enum(['EUR', 'USD']).optional(), description: 'Target currency' },
        };
        async execute(input) { return String(input.amount); }
      }
      export default ConvertTool;
    `);
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ name: 'convert_currency', description: 'Convert an amount between currencies', extractor: 'class-tool' });
    expect(tools[0]!.parameters).toEqual([
      { name: 'amount', type: 'number', description: 'Amount in the source currency', required: true },
      { name: 'to', type: 'string', enum: ['EUR', 'USD'], description: 'Target currency', required: false },
    ]);
    expect(handlers.map((handler) => handler.argsParam)).toEqual([0]);
    expect(tools[0]!.handlerId).toBe(`src/tools/Tool.ts:${handlers[0]!.node.start}`);
  });

  it('reads constructor assignments (tsc ES2020 output), getters and zod object schemas', () => {
    const { tools } = extract(`
      const mcp_framework_1 = require("mcp-framework");
      class PingTool extends mcp_framework_1.MCPTool {
        constructor() { super(...arguments); this.name = "ping"; this.schema = zod_1.z.object({ host: zod_1.z.string() }); }
        get description() { return "Ping a host"; }
        async execute({ host }) { return host; }
      }
    `, 'dist/tools/PingTool.js');
    expect(tools.map((tool) => [tool.name, tool.description, tool.parameters.map((parameter) => parameter.name)])).toEqual([['ping', 'Ping a host', ['host']]]);
  });

  it('ignores base classes and classes that are not tools', () => {
    const { tools } = extract(`
      export abstract class BaseTool { abstract name: string; abstract execute(input: unknown): Promise<unknown>; }
      class Toolbar extends Widget { name = 'bar'; description = 'A toolbar'; execute() {} }
      class HalfTool extends BaseTool { name = 'half'; async execute() {} }
    `);
    expect(tools).toEqual([]);
  });
});
