import { describe, expect, it } from 'vitest';
import { javascriptAnalyzer } from '../analysis/javascript/index.js';
import type { SourceFile } from '../model.js';

async function analyze(files: Record<string, string>) {
  const sources: SourceFile[] = Object.entries(files)
    .filter(([path]) => path.endsWith('.js'))
    .map(([path, text]) => ({ path, absPath: `/virtual/${path}`, role: 'source', size: text.length, text, language: 'javascript' }));
  return javascriptAnalyzer.analyze(sources, { mode: 'fast', readText: (path) => files[path] });
}

const document = JSON.stringify({
  openapi: '3.1.0',
  paths: {
    '/pets': {
      get: { operationId: 'listPets', summary: 'List pets', description: 'List all pets of the store, by page.', parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }] },
      post: { operationId: 'createPet', summary: 'Create a pet', requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } } } },
    },
    '/pets/{id}': { parameters: [], delete: { summary: 'Delete a pet without an operation id' } },
  },
});

describe('tools generated from an OpenAPI document', () => {
  it('reads the member the code picks first, and the parameters', async () => {
    const { tools } = await analyze({
      'spec/petstore.json': document,
      'server.js': `
        const spec = JSON.parse(require('fs').readFileSync(require('path').join(__dirname, 'spec', 'petstore.json'), 'utf8'));
        for (const [route, item] of Object.entries(spec.paths)) {
          for (const [method, operation] of Object.entries(item)) {
            server.tool(operation.operationId, operation.summary || operation.description, async (args) => call(method, route, args));
          }
        }
      `,
    });
    expect(tools.map((tool) => [tool.name, tool.description, tool.extractor, tool.parameters.map((parameter) => `${parameter.name}${parameter.required ? '' : '?'}`)])).toEqual([
      ['listPets', 'List pets', 'openapi', ['limit?']],
      ['createPet', 'Create a pet', 'openapi', ['name']],
    ]);
  });

  it('finds nothing when the document is not in the package', async () => {
    const { tools } = await analyze({
      'server.js': `
        const spec = await (await fetch(process.env.SPEC_URL)).json();
        for (const operation of operationsOf(spec)) server.tool(operation.operationId, operation.description, async (args) => call(operation, args));
      `,
    });
    expect(tools).toEqual([]);
  });
});
