// The Python analyzer: web-tree-sitter parses each file once; program.ts indexes imports, functions and constants;
// the extractors read FastMCP / MCPServer, low-level Server (v1 decorators, v2 `on_*` handlers) and hand-written
// JSON-RPC tools; taint.ts (over values, state, guards, sinks, expressions, scope) follows tool inputs and other
// origins to sinks; facts.ts reads transport/TLS/obfuscation facts. Trees stay alive until the end because
// cross-file summaries walk the callee's tree, and are deleted in one place (the finally below).
import type { CodeFact, ParseProblem, SourceFile, TaintFlow, ToolDefinition } from '../../model.js';
import type { AnalyzeOptions, LanguageAnalysis, LanguageAnalyzer } from '../analyzer.js';
import { applyMounts, extractFastMcp, fastMcpServerNames } from '../../extract/python-fastmcp.js';
import { extractJsonRpc } from '../../extract/python-jsonrpc.js';
import { extractLowLevel, lowLevelServerNames } from '../../extract/python-lowlevel.js';
import { pythonFacts } from './facts.js';
import { pythonHandlerIdentityFacts } from './identity.js';
import { errorShare, MAX_ERROR_SHARE, pythonParser } from './parser.js';
import { indexModule, PyProgram, type PyExtraction, type PyHandler } from './program.js';
import { analyzeTaint } from './taint.js';
import { attachCapabilities, type Reach } from '../capabilities.js';
import { createYielder } from '../../yielder.js';

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export const pythonAnalyzer: LanguageAnalyzer = {
  id: 'python',
  languages: ['python'],

  async analyze(files: readonly SourceFile[], options: AnalyzeOptions): Promise<LanguageAnalysis> {
    const parser = await pythonParser();
    const program = new PyProgram();
    const problems: ParseProblem[] = [];
    const tools: ToolDefinition[] = [];
    const handlers: PyHandler[] = [];
    let flows: TaintFlow[] = [];
    const facts: CodeFact[] = [];
    const toolReach = new Map<string, Reach>();
    const tick = createYielder(options.signal);
    try {
      for (const file of files) {
        await tick();
        if (file.text === undefined) continue;
        let tree;
        try {
          tree = parser.parse(file.text);
        } catch (error) {
          problems.push({ file: file.path, message: `python parse failed: ${message(error)}`, kind: 'unparsed' });
          continue;
        }
        if (!tree) {
          problems.push({ file: file.path, message: 'python parse failed', kind: 'unparsed' });
          continue;
        }
        const share = errorShare(tree);
        if (share > MAX_ERROR_SHARE) {
          problems.push({ file: file.path, message: `not valid Python (${Math.round(share * 100)}% of the file does not parse); skipped`, kind: 'unparsed' });
          tree.delete();
          continue;
        }
        program.add(indexModule(file, tree));
        options.onFile?.(file);
      }

      try {
        const fastMcp = fastMcpServerNames(program);
        const servers = new Map<ToolDefinition, string>();
        const fastMcpTools: PyExtraction = { tools: [], handlers: [] };
        for (const module of program.modules) {
          const extraction = extractFastMcp(program, module, fastMcp, servers);
          fastMcpTools.tools.push(...extraction.tools);
          fastMcpTools.handlers.push(...extraction.handlers);
        }
        applyMounts(program, fastMcpTools, servers);
        tools.push(...fastMcpTools.tools);
        handlers.push(...fastMcpTools.handlers);
        const lowLevel = extractLowLevel(program, lowLevelServerNames(program));
        tools.push(...lowLevel.tools);
        handlers.push(...lowLevel.handlers);
        const jsonRpc = extractJsonRpc(program);
        tools.push(...jsonRpc.tools);
        handlers.push(...jsonRpc.handlers);
      } catch (error) {
        problems.push({ file: '', message: `python tool extraction failed: ${message(error)}`, kind: 'failed' });
      }

      await tick();
      try {
        flows = await analyzeTaint(program, handlers, tick, toolReach);
      } catch (error) {
        // A stop is not a dataflow failure to record: it ends the scan.
        if (options.signal?.aborted) throw error;
        problems.push({ file: '', message: `python dataflow failed: ${message(error)}`, kind: 'failed' });
      }

      try {
        facts.push(...pythonHandlerIdentityFacts(handlers));
      } catch (error) {
        problems.push({ file: '', message: `python handler identity facts failed: ${message(error)}`, kind: 'failed' });
      }
      for (const module of program.modules) {
        await tick();
        try {
          facts.push(...pythonFacts(module));
        } catch (error) {
          problems.push({ file: module.path, message: `python code facts failed: ${message(error)}`, kind: 'failed' });
        }
      }
      attachCapabilities(tools, toolReach, facts);
      return { tools, flows, facts, problems, parsedFiles: program.modules.length };
    } finally {
      for (const module of program.modules) module.tree.delete();
    }
  },

  async parseOnly(files: readonly SourceFile[]): Promise<number> {
    const parser = await pythonParser();
    let parsed = 0;
    for (const file of files) {
      if (file.text === undefined) continue;
      const tree = parser.parse(file.text);
      if (!tree) continue;
      if (errorShare(tree) <= MAX_ERROR_SHARE) parsed++;
      tree.delete();
    }
    return parsed;
  },
};
