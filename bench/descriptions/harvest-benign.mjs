#!/usr/bin/env node
// Collects the tool, prompt and parameter descriptions of the popular servers in the shared package cache
// (.bench-cache/unpacked, filled by the accuracy bench) as the "real" half of the benign description corpus. The
// descriptions are extracted statically by the built core, exactly as a scan would see them; nothing is executed.
// Usage: node bench/descriptions/harvest-benign.mjs  (writes bench/descriptions/benign-real.json)
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scanTarget } from '../../packages/core/dist/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const unpacked = path.join(here, '..', '..', '.bench-cache', 'unpacked');
/** Packages that are MCP tooling rather than servers carry test and example descriptions, not real tools. */
const TOOLING = /^@modelcontextprotocol\+(?:inspector|sdk)|^@mcpjam\+inspector/;

const seen = new Set();
const items = [];
/** Tool names per server: the analyser knows a server's tools, so each item is measured beside its siblings. */
const servers = {};
for (const entry of (await readdir(unpacked)).sort()) {
  if (entry.endsWith('.json') || TOOLING.test(entry)) continue;
  const server = entry.replace(/@[^@]+$/, '').replace('+', '/');
  const report = await scanTarget({ kind: 'directory', input: entry, path: path.join(unpacked, entry) }, { mode: 'fast' });
  servers[server] = [...new Set(report.tools.map((tool) => tool.name))];
  for (const tool of report.tools) {
    const texts = [['description', tool.description], ...tool.parameters.map((p) => [`parameters.${p.name}.description`, p.description])];
    for (const [field, text] of texts) {
      if (typeof text !== 'string' || text.trim().length < 12) continue;
      const key = text.trim();
      if (seen.has(key)) continue;
      seen.add(key);
      items.push({ id: `real-${items.length + 1}`, style: field === 'description' ? 'real-tool' : 'real-parameter', server, tool: tool.name, field, text });
    }
  }
}
// One item per line keeps the file reviewable in diffs.
const lines = items.map((item) => `  ${JSON.stringify(item)}`).join(',\n');
const serverLines = Object.entries(servers).map(([name, tools]) => `  ${JSON.stringify(name)}: ${JSON.stringify(tools)}`).join(',\n');
await writeFile(path.join(here, 'benign-real.json'), `{\n "source": "extracted statically from .bench-cache/unpacked by harvest-benign.mjs",\n "servers": {\n${serverLines}\n },\n "items": [\n${lines}\n ]\n}\n`);
console.log(`${items.length} benign descriptions from ${new Set(items.map((i) => i.server)).size} servers`);
