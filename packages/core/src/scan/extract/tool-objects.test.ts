import { describe, expect, it } from 'vitest';
import { javascriptAnalyzer } from '../analysis/javascript/index.js';
import type { SourceFile } from '../model.js';

/** Analyses a virtual package: code files are parsed, every file is readable as package text. */
async function analyze(files: Record<string, string>) {
  const sources: SourceFile[] = Object.entries(files)
    .filter(([path]) => /\.[cm]?[jt]s$/.test(path))
    .map(([path, text]) => ({ path, absPath: `/virtual/${path}`, role: 'source', size: text.length, text, language: path.endsWith('.ts') ? 'typescript' : 'javascript' }));
  return javascriptAnalyzer.analyze(sources, { mode: 'fast', readText: (path) => files[path] });
}

const describeTools = (tools: Array<{ name: string; description?: string; extractor: string }>) =>
  tools.map((tool) => [tool.name, tool.description, tool.extractor]);

describe('tool objects outside a framework call', () => {
  it('reads defineTool/createTool definitions whose registration names nothing static', async () => {
    const { tools } = await analyze({
      'src/tools/search.ts': `
        import { createTool } from '../lib/tool.js';
        export const searchTool = createTool({ name: 'search_issues', description: 'Search issues by text', run: async ({ q }) => q });
      `,
      'src/index.ts': `
        import { searchTool } from './tools/search.js';
        for (const tool of [searchTool]) server.tool(tool.name, tool.description, async (args) => tool.run(args));
      `,
    });
    expect(describeTools(tools)).toEqual([['search_issues', 'Search issues by text', 'tool-map']]);
  });

  it('resolves descriptions from JSON modules, Markdown files and later assignments', async () => {
    const { tools } = await analyze({
      'texts/tools.json': JSON.stringify({ lookup: { summary: 'Look up a word in the dictionary' } }),
      'texts/translate.md': 'Translate a sentence between two languages.\n',
      'src/tools.mjs': `
        import { readFile } from 'node:fs/promises';
        import texts from '../texts/tools.json' with { type: 'json' };
        const lookup = defineTool({ name: 'lookup', description: texts.lookup.summary, parameters: {}, handler: async () => '' });
        const translate = defineTool({ name: 'translate', description: 'placeholder', parameters: {}, handler: async () => '' });
        translate.description = await readFile(new URL('../texts/translate.md', import.meta.url), 'utf8');
        const define = defineTool({ name: 'define', description: 'Define', parameters: {}, handler: async () => '' });
        define.update({ description: 'Give the definition of a word' });
        export const tools = [lookup, translate, define];
      `,
    });
    expect(describeTools(tools)).toEqual([
      ['lookup', 'Look up a word in the dictionary', 'tool-map'],
      ['translate', 'Translate a sentence between two languages.\n', 'tool-map'],
      ['define', 'Give the definition of a word', 'tool-map'],
    ]);
  });

  it('links each definition\'s function to dataflow', async () => {
    const { flows } = await analyze({
      'lib/tools.js': `
        const { exec } = require('child_process');
        function getTools() {
          return [{ name: 'disk_usage', description: 'Show disk usage of a folder', inputSchema: { type: 'object' }, handler: (args) => exec('du -sh ' + args.folder) }];
        }
        module.exports = { getTools };
      `,
    });
    expect(flows.map((flow) => [flow.sink.kind, flow.origin.kind, flow.origin.tool, flow.origin.param])).toEqual([['command', 'tool-input', 'disk_usage', 'folder']]);
  });

  it('leaves records that only have a name and a description, and files outside the package', async () => {
    const { tools } = await analyze({
      'src/data.js': `
        export const CATEGORIES = [{ name: 'bugs', description: 'Defects' }, { name: 'ideas', description: 'Feature requests' }];
        export const tool = defineTool({ name: 'secret', description: readFileSync(path.join(__dirname, '../../../etc/motd'), 'utf8'), handler: () => 1 });
      `,
    });
    expect(tools.map((tool) => [tool.name, tool.description])).toEqual([['secret', undefined]]);
  });
});
