// The JavaScript/TypeScript analyzer: parse with oxc, index each file once, extract tool definitions, find code facts,
// then run the taint pass over all files together (helpers imported across files are summarised once).
import type { CodeFact, ParseProblem, SourceFile, ToolDefinition } from '../../model.js';
import { fastMcpVisitor } from '../../extract/fastmcp-ts.js';
import { unrecognisedShapes } from '../../extract/frameworks.js';
import type { Extraction, FileVisitor, ToolHandler } from '../../extract/mcp-sdk.js';
import { emptyExtraction, mcpSdkVisitor } from '../../extract/mcp-sdk.js';
import { toolMapVisitor } from '../../extract/tool-maps.js';
import { classToolVisitor } from '../../extract/class-tools.js';
import { mcpUseVisitor } from '../../extract/mcp-use.js';
import { openApiVisitor } from '../../extract/openapi.js';
import { toolObjectVisitor } from '../../extract/tool-objects.js';
import type { AnalyzeOptions, LanguageAnalysis, LanguageAnalyzer } from '../analyzer.js';
import type { AstNode } from './ast.js';
import { asciiSet, longRunStarts, offsetsOf, parseFile, walkWithin, wordsPattern } from './ast.js';
import { factsVisitor } from './facts.js';
import { handlerIdentityFacts } from './identity.js';
import type { FileIndex } from './file-index.js';
import { buildFileIndex, functionOwners, resolveRelativeImport } from './file-index.js';
import { newScope, type FileContext } from './scope.js';
import { TaintEngine } from './taint.js';
import { attachCapabilities } from '../capabilities.js';
import { createYielder } from '../../yielder.js';

// Every tool declaration of a supported framework contains one of these words; a file (or a subtree) without any of
// them needs no extractor.
const TOOL_KEYWORDS = wordsPattern([
  'registerTool', 'registerPrompt', 'registerResource', 'tool(', 'prompt(', 'resource(', 'setRequestHandler', 'McpServer',
  'Server(', 'FastMCP', 'addTool', 'addPrompt', 'addResource', 'inputSchema', 'input_schema', 'tools:', 'Tool', 'description', 'operationId',
]);

// Every code fact starts at one of these words (or at a long encoded literal): the fact finder only enters subtrees
// that contain one. Case variants are listed because the search is a plain substring search.
const FACT_KEYWORDS = wordsPattern([
  'rejectUnauthorized', 'strictSSL', 'insecure', 'NODE_TLS_REJECT_UNAUTHORIZED', 'DnsRebinding', 'allowedHosts',
  'allowedOrigins', 'origin', 'Origin', 'host', 'Host', 'ServerTransport', 'transportType', 'cors', 'ccess-Control',
  'ccess-control', 'uthorization', 'api-key', 'API-Key', 'auth', 'Auth', 'jwt', 'Jwt', 'JWT', 'passport', 'Token',
  'ApiKey', 'listen', 'serve', 'require', 'import(',
]);

/** Runs of at least 200 base64/hex characters (candidate encoded blobs). */
const ENCODED_CHARS = asciiSet('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-');

function longEncodedRuns(text: string, into: number[]): void {
  longRunStarts(text, ENCODED_CHARS, 200, into);
}

function factOffsets(text: string, into: number[]): number[] {
  offsetsOf(text, FACT_KEYWORDS, into);
  longEncodedRuns(text, into);
  return into.sort((a, b) => a - b);
}

/**
 * One walk over a file: extracts the tools, prompts, resources and instructions it declares (every supported framework)
 * and, when `facts` is given, collects its code facts. Only subtrees whose text contains a keyword of some visitor are
 * entered, which keeps large bundles cheap.
 */
export function extractTools(index: FileIndex, facts?: CodeFact[]): Extraction {
  const extraction = emptyExtraction();
  const text = index.parsed.text;
  let offsets = offsetsOf(text, TOOL_KEYWORDS);
  const visitors: FileVisitor[] = [];
  if (offsets.length > 0) {
    visitors.push(
      // First, so its `finish` declares tool-table entries before the SDK's links its dispatcher to them.
      toolObjectVisitor(index, extraction),
      mcpSdkVisitor(index, extraction),
      fastMcpVisitor(index, extraction),
      toolMapVisitor(index, extraction),
      classToolVisitor(index, extraction),
      mcpUseVisitor(index, extraction),
      openApiVisitor(index, extraction),
    );
  }
  if (facts) {
    visitors.push(factsVisitor(index, facts));
    offsets = factOffsets(text, offsets);
  }
  if (visitors.length === 0 || offsets.length === 0) return extraction;
  walkWithin(index.parsed.program, offsets, (node) => {
    for (const visitor of visitors) visitor.enter(node);
  });
  for (const visitor of visitors) visitor.finish();
  return extraction;
}

/** `dist/x.js` and `src/x.ts` of one package declare the same tools: keep the source one. */
function isCompiledOutput(path: string): boolean {
  return /(^|\/)(dist|build|lib|out)\//.test(path) && /\.[cm]?js$/.test(path);
}

function dedupeTools(tools: ToolDefinition[]): ToolDefinition[] {
  const byKey = new Map<string, ToolDefinition>();
  for (const tool of tools) {
    const key = `${tool.kind}\u0000${tool.name}`;
    const existing = byKey.get(key);
    if (!existing || (isCompiledOutput(existing.location.file) && !isCompiledOutput(tool.location.file))) byKey.set(key, tool);
  }
  return [...byKey.values()];
}

/** Enough for any real server's own modules; a transport whose closure is larger is judged on what was reached. */
const MAX_CLOSURE = 500;

/** `path` and every package file it loads through relative imports, requires and re-exports, transitively. */
function moduleClosure(path: string, indexes: ReadonlyMap<string, FileIndex>): string[] {
  const seen = new Set([path]);
  const queue = [path];
  const has = (candidate: string) => indexes.has(candidate);
  while (queue.length > 0 && seen.size < MAX_CLOSURE) {
    const from = queue.shift()!;
    const index = indexes.get(from);
    if (!index) continue;
    const sources = [...index.imports.values(), ...index.reExports.values()].map((binding) => binding.source).concat(index.starExports);
    for (const source of sources) {
      const target = resolveRelativeImport(from, source, has);
      if (target === undefined || seen.has(target)) continue;
      seen.add(target);
      queue.push(target);
    }
  }
  return [...seen];
}

async function analyze(files: readonly SourceFile[], options: AnalyzeOptions): Promise<LanguageAnalysis> {
  const problems: ParseProblem[] = [];
  const indexes = new Map<string, FileIndex>();
  const tick = createYielder(options.signal);
  for (const file of files) {
    await tick();
    const outcome = parseFile(file);
    options.onFile?.(file);
    if (!outcome.ok) {
      problems.push({ file: file.path, message: outcome.message, kind: 'unparsed' });
      continue;
    }
    indexes.set(file.path, buildFileIndex(outcome.parsed));
  }
  // Constants, schemas and tool objects are often defined in one file and used in another: let static evaluation
  // follow relative imports once every file is indexed.
  const has = (path: string) => indexes.has(path);
  for (const index of indexes.values()) {
    const from = index.parsed.file.path;
    if (options.readText) index.readText = options.readText;
    index.resolveImport = (source) => {
      const path = resolveRelativeImport(from, source, has);
      return path === undefined ? undefined : indexes.get(path);
    };
  }
  const contexts = new Map<string, FileContext>();
  const allTools: ToolDefinition[] = [];
  const facts: CodeFact[] = [];
  // One map for the whole package: a tool registered in one file may be handled by a function exported from another.
  const handlers = new Map<AstNode, ToolHandler>();
  for (const [path, index] of indexes) {
    await tick();
    // Facts found in a bundle belong to inlined third-party code as often as not; the engine does not report them.
    const extraction = extractTools(index, index.parsed.file.role === 'bundle' ? undefined : facts);
    allTools.push(...extraction.tools);
    for (const handler of extraction.handlers) if (!handlers.has(handler.node)) handlers.set(handler.node, handler);
    contexts.set(path, {
      index,
      handlers,
      dispatchers: new Set(extraction.dispatchers),
      moduleScope: newScope(),
    });
  }
  for (const fact of facts) if (fact.kind === 'mcp-http-transport') fact.loads = moduleClosure(fact.location.file, indexes);
  facts.push(...handlerIdentityFacts(handlers.values(), (handler) => functionOwners.get(handler.node) ?? indexes.get(handler.tool.location.file)));
  options.signal?.throwIfAborted();
  const engine = new TaintEngine({ files: contexts, tools: allTools });
  const flows = await engine.run(tick);
  attachCapabilities(allTools, engine.toolReach, facts);
  const diagnostics = unrecognisedShapes(indexes.values(), allTools);
  return { tools: dedupeTools(allTools), flows, facts, problems, parsedFiles: contexts.size, diagnostics };
}

export const javascriptAnalyzer: LanguageAnalyzer = {
  id: 'javascript',
  languages: ['javascript', 'typescript'],
  analyze,
  async parseOnly(files) {
    let parsed = 0;
    for (const file of files) if (parseFile(file).ok) parsed++;
    return parsed;
  },
};
