import { createRequire } from 'node:module';
import { Language, Parser, type Tree } from 'web-tree-sitter';

let parserPromise: Promise<Parser> | undefined;

/** One parser per process: loading the wasm grammar costs far more than parsing a typical file. */
export function pythonParser(): Promise<Parser> {
  parserPromise ??= (async () => {
    await Parser.init();
    const wasmPath = createRequire(import.meta.url).resolve('tree-sitter-python/tree-sitter-python.wasm');
    const language = await Language.load(wasmPath);
    const parser = new Parser();
    parser.setLanguage(language);
    return parser;
  })();
  return parserPromise;
}

/** Share of the source covered by ERROR nodes; tree-sitter recovers from small errors, so only a mostly-broken file is skipped. */
export function errorShare(tree: Tree): number {
  const root = tree.rootNode;
  if (!root.hasError) return 0;
  const length = Math.max(1, root.endIndex - root.startIndex);
  let covered = 0;
  for (const node of root.descendantsOfType('ERROR')) {
    // Nested ERROR nodes lie inside an outer one already counted.
    if (node.parent?.type === 'ERROR') continue;
    covered += node.endIndex - node.startIndex;
  }
  if (root.type === 'ERROR') covered = length;
  return covered / length;
}

/** Above this share of ERROR text a file is reported in `problems` and skipped. */
export const MAX_ERROR_SHARE = 0.5;
