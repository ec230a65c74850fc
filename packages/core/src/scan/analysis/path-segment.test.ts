// The one-path-segment sanitizer of the shared catalogue (`single-path-segment`), in both languages: a value made one
// segment (encoded, a basename, separators stripped) with constant text beside it names one entry of its folder.
import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { SourceFile, TaintFlow } from '../model.js';
import { javascriptAnalyzer } from './javascript/index.js';
import { pythonAnalyzer } from './python/index.js';
import { pythonSources, writeProject } from './python/test-support.js';

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

function jsFile(text: string): SourceFile {
  return { path: 'src/server.ts', absPath: '/virtual/src/server.ts', language: 'typescript', role: 'source', size: text.length, text };
}

/** A docs server whose `read_page` tool reads the file `file` builds from `name` (helpers go in `helpers`). */
async function jsFileReads(file: string, helpers = ''): Promise<TaintFlow[]> {
  const text = [
    "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
    "import { z } from 'zod';",
    "import path from 'node:path';",
    "import { readFile } from 'node:fs/promises';",
    "const docsDir = path.join(process.cwd(), 'docs');",
    helpers,
    "const server = new McpServer({ name: 'docs', version: '1.0.0' });",
    "server.tool('read_page', { name: z.string() }, async ({ name }) => {",
    `  const file = ${file};`,
    "  return { content: [{ type: 'text', text: await readFile(file, 'utf8') }] };",
    '});',
  ].join('\n');
  const result = await javascriptAnalyzer.analyze([jsFile(text)], { mode: 'fast' });
  return result.flows.filter((flow) => flow.sink.kind === 'file-read' && flow.origin.kind === 'tool-input');
}

async function pyFileReads(file: string, imports = ''): Promise<TaintFlow[]> {
  const root = await writeProject({
    'server.py': [
      'import os',
      'import re',
      'from urllib.parse import quote, unquote',
      'from mcp.server.fastmcp import FastMCP',
      imports,
      'mcp = FastMCP("docs")',
      'DOCS = os.path.join(os.path.dirname(__file__), "docs")',
      '',
      '@mcp.tool()',
      'def read_page(name: str) -> str:',
      '    """Read one page of the documentation."""',
      `    file = ${file}`,
      '    with open(file) as handle:',
      '        return handle.read()',
      '',
    ].join('\n'),
  });
  roots.push(root);
  const result = await pythonAnalyzer.analyze(await pythonSources(root), { mode: 'fast' });
  return result.flows.filter((flow) => flow.sink.kind === 'file-read' && flow.origin.kind === 'tool-input');
}

const segmentSafe = (flows: TaintFlow[]) => flows.length > 0 && flows.every((flow) => flow.sanitizers.includes('single-path-segment'));
const unsafe = (flows: TaintFlow[]) => flows.some((flow) => flow.sanitizers.length === 0);

describe('single path segment (JS/TS)', () => {
  it('follows the encoding through a helper and a variable into a template with a suffix', async () => {
    const flows = await jsFileReads(
      "(() => { const encoded = encodeName(name.replace('.md', '')); return path.join(docsDir, `${encoded}.md`); })()",
      'function encodeName(value) { return encodeURIComponent(value); }',
    );
    expect(segmentSafe(flows)).toBe(true);
  });

  it('counts a prefix in a + chain and a replace that strips both separators', async () => {
    expect(segmentSafe(await jsFileReads("docsDir + '/' + 'page-' + encodeURIComponent(name)"))).toBe(true);
    expect(segmentSafe(await jsFileReads("path.join(docsDir, name.replace(/[\\\\/]/g, '_') + '.json')"))).toBe(true);
  });

  it('does not count a segment alone, a decoded one, or a replace of one `../`', async () => {
    expect(unsafe(await jsFileReads('path.join(docsDir, encodeURIComponent(name))'))).toBe(true);
    expect(unsafe(await jsFileReads('path.join(docsDir, `${decodeURIComponent(encodeURIComponent(name))}.md`)'))).toBe(true);
    expect(unsafe(await jsFileReads("path.join(docsDir, name.replace('../', '') + '.md')"))).toBe(true);
    expect(unsafe(await jsFileReads("path.join(docsDir, `${encodeURIComponent(name) + '/' + name}.md`)"))).toBe(true);
  });
});

describe('single path segment (Python)', () => {
  it("counts quote(x, safe='') beside text, in an f-string and a + chain", async () => {
    expect(segmentSafe(await pyFileReads('os.path.join(DOCS, f"{quote(name, safe=\'\')}.md")'))).toBe(true);
    expect(segmentSafe(await pyFileReads('DOCS + "/" + quote(name, safe="") + ".md"'))).toBe(true);
    expect(segmentSafe(await pyFileReads('os.path.join(DOCS, re.sub(r"[\\\\/]", "_", name) + ".txt")'))).toBe(true);
  });

  it('does not count quote with its default safe, an unquoted value, or the segment alone', async () => {
    expect(unsafe(await pyFileReads('os.path.join(DOCS, f"{quote(name)}.md")'))).toBe(true);
    expect(unsafe(await pyFileReads('os.path.join(DOCS, f"{unquote(quote(name, safe=\'\'))}.md")'))).toBe(true);
    expect(unsafe(await pyFileReads('os.path.join(DOCS, quote(name, safe=""))'))).toBe(true);
  });
});
