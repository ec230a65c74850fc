import { describe, expect, it } from 'vitest';
import { parseFile } from '../analysis/javascript/ast.js';
import { buildFileIndex } from '../analysis/javascript/file-index.js';
import { extractFastMcp } from './fastmcp-ts.js';

function extract(text: string) {
  const outcome = parseFile({ path: 'src/server.ts', absPath: '/virtual/src/server.ts', role: 'source', size: text.length, text });
  if (!outcome.ok) throw new Error(outcome.message);
  return extractFastMcp(buildFileIndex(outcome.parsed));
}

describe('extractFastMcp', () => {
  const extraction = extract(`
    import { FastMCP } from 'fastmcp';
    import { z } from 'zod';
    const server = new FastMCP({ name: 'demo', version: '1.0.0', instructions: 'Be brief.' });
    server.addTool({
      name: 'add',
      description: 'Add two numbers',
      parameters: z.object({ a: z.number().describe('First'), b: z.number().default(0) }),
      annotations: { readOnlyHint: true, title: 'Addition' },
      execute: async (args) => String(args.a + args.b),
    });
    server.addTool({
      name: 'shout',
      parameters: z.object({ text: z.string() }),
      async execute({ text }) { return text.toUpperCase(); },
    });
    server.addPrompt({
      name: 'git-commit',
      description: 'Write a commit message',
      arguments: [{ name: 'changes', description: 'Git diff', required: true }],
      load: async (args) => args.changes,
    });
    server.addResource({ uri: 'file:///logs/app.log', name: 'Application logs', mimeType: 'text/plain', load: async () => ({ text: '' }) });
    server.addResourceTemplate({ uriTemplate: 'file:///logs/{name}.log', name: 'Logs', arguments: [{ name: 'name', required: true }], load: async () => ({ text: '' }) });
  `);
  const byName = (name: string) => extraction.tools.find((tool) => tool.name === name);

  it('extracts tools with zod object parameters, annotations and handlers', () => {
    expect(byName('add')).toMatchObject({
      kind: 'tool',
      extractor: 'fastmcp-ts',
      description: 'Add two numbers',
      annotations: { readOnlyHint: true, title: 'Addition' },
      parameters: [
        { name: 'a', type: 'number', description: 'First', required: true },
        { name: 'b', type: 'number', default: 0, required: false },
      ],
    });
    expect(byName('shout')?.parameters).toEqual([{ name: 'text', type: 'string', required: true }]);
    // both the arrow `execute` and the method-shorthand `execute` are linked to the dataflow pass
    expect(extraction.handlers.map((handler) => handler.tool.name)).toEqual(expect.arrayContaining(['add', 'shout']));
  });

  it('extracts prompts, resources, templates and instructions', () => {
    expect(byName('git-commit')).toMatchObject({
      kind: 'prompt',
      description: 'Write a commit message',
      parameters: [{ name: 'changes', description: 'Git diff', required: true }],
    });
    expect(byName('Application logs')).toMatchObject({ kind: 'resource', uri: 'file:///logs/app.log' });
    expect(byName('Logs')).toMatchObject({ kind: 'resource', uri: 'file:///logs/{name}.log' });
    expect(byName('demo')).toMatchObject({ kind: 'instructions', description: 'Be brief.' });
  });
});
