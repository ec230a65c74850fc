import { describe, expect, it } from 'vitest';
import { parseFile } from '../analysis/javascript/ast.js';
import { buildFileIndex } from '../analysis/javascript/file-index.js';
import { extractTools } from '../analysis/javascript/index.js';

function extract(text: string) {
  const path = 'src/server.mjs';
  const outcome = parseFile({ path, absPath: `/virtual/${path}`, role: 'source', size: text.length, text });
  if (!outcome.ok) throw new Error(outcome.message);
  return extractTools(buildFileIndex(outcome.parsed));
}

describe('hand-written JSON-RPC servers', () => {
  it('takes the function that switches on message.method and answers tools/call as the dispatcher', () => {
    const { dispatchers, tools } = extract(`
      const TOOLS = [{ name: 'word_count', description: 'Count words in a text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }];
      export async function onMessage(msg) {
        switch (msg.method) {
          case 'tools/list': return { tools: TOOLS };
          case 'tools/call': return run(msg.params.name, msg.params.arguments);
          default: return null;
        }
      }
    `);
    expect(dispatchers.map((fn) => fn.id?.name)).toEqual(['onMessage']);
    expect(tools.map((tool) => [tool.name, tool.description])).toEqual([['word_count', 'Count words in a text']]);
  });

  it('takes a method destructured or copied from the parsed message as the message\'s method', () => {
    const { dispatchers } = extract(`
      const TOOLS = [{ name: 'word_count', description: 'Count words in a text', inputSchema: { type: 'object' } }];
      rl.on('line', async function onLine(line) {
        const { id, method, params } = JSON.parse(line);
        switch (method) {
          case 'tools/list': return reply(id, { tools: TOOLS });
          case 'tools/call': return reply(id, await run(params.name, params.arguments));
        }
      });
      export function handle(message) {
        const method = message.method;
        if (method === 'tools/list') return { tools: TOOLS };
        if (method === 'tools/call') return run(message.params.name, message.params.arguments);
      }
    `);
    expect(dispatchers.map((fn) => fn.id?.name)).toEqual(['onLine', 'handle']);
  });

  it('ignores a client that only sends tools/call, and a bare method switch', () => {
    const client = extract(`
      export async function callTool(rpc, name, args) {
        const response = await rpc.send({ method: 'tools/call', params: { name, arguments: args } });
        if (response.method === 'tools/call') throw new Error('echo');
        return response.result;
      }
    `);
    expect(client.dispatchers).toEqual([]);
    const capabilityCheck = extract(`
      function assertCapability(method) { switch (method) { case 'tools/call': case 'tools/list': if (!caps.tools) throw new Error(method); } }
    `);
    expect(capabilityCheck.dispatchers).toEqual([]);
  });
});
