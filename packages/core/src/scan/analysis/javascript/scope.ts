// What the JS/TS dataflow keeps per file and per function body: the file's context, and the variables, local
// functions, conditions and constants of a scope.
import type { ToolHandler } from '../../extract/mcp-sdk.js';
import type { AstNode } from './ast.js';
import type { Instance } from './classes.js';
import type { FileIndex } from './file-index.js';
import type { RequestHandler } from './http.js';
import type { Taint } from './labels.js';
import { CLEAN, significant, union } from './labels.js';

export interface FileContext {
  index: FileIndex;
  handlers: Map<AstNode, ToolHandler>;
  dispatchers: Set<AstNode>;
  moduleScope: Scope;
  /** Sorted offsets of possible taint sources and of handlers (computed on first use); see `mayMatter`. */
  hints?: number[];
  /** Functions a framework calls with a request by convention (Next.js route exports …), computed on first use. */
  exportedHandlers?: Map<AstNode, RequestHandler>;
}

/**
 * A list declared with a literal (`const args = ['commit']`): the words it starts with hold for its whole life, since
 * `push` only adds after them; `ended` when a `--` pushed later by a statement of the declaring block has ended its
 * options (see `StatementAnalysis.noteList`).
 */
export interface ArgvList {
  start: ReadonlyArray<string | undefined>;
  ended: boolean;
}

export class Scope {
  readonly vars = new Map<string, Taint>();
  readonly functions = new Map<string, AstNode>();
  /** Conditions kept in a variable (`const ok = dirs.some(…)`), so `if (!ok)` is read as the check it stands for. */
  readonly conditions = new Map<string, AstNode>();
  /** Local constants with a known text (`const command = "kubectl"`), for the sinks that care which program runs. */
  readonly constants = new Map<string, string>();
  /** Local paths built from constant parts (`path.join(os.homedir(), '.bashrc')` as `~/.bashrc`), for capabilities. */
  readonly paths = new Map<string, string>();
  /** The class instance a local holds (`const ev = new Evaluator()`, a typed parameter); null: declared, not known. */
  readonly instances = new Map<string, Instance | null>();
  /** What is known of the argv-like lists declared in this scope, for the elements pushed onto them (see `ArgvList`). */
  readonly lists = new Map<string, ArgvList>();
  /** Some variable of this scope holds a tainted value. */
  tainted = false;
  constructor(readonly parent?: Scope) {}

  private self(): Scope {
    return this;
  }

  lookup(name: string): Taint {
    for (let scope: Scope | undefined = this.self(); scope; scope = scope.parent) {
      const taint = scope.vars.get(name);
      if (taint) return taint;
    }
    return CLEAN;
  }

  declare(name: string, taint: Taint): void {
    if (significant(taint)) this.tainted = true;
    this.vars.set(name, union(this.vars.get(name) ?? CLEAN, taint));
  }

  anyTainted(): boolean {
    for (let scope: Scope | undefined = this.self(); scope; scope = scope.parent) if (scope.tainted) return true;
    return false;
  }

  /** Assignment is a weak update: a variable keeps what it may have held on any path. */
  assign(name: string, taint: Taint): void {
    if (significant(taint)) this.tainted = true;
    for (let scope: Scope | undefined = this.self(); scope; scope = scope.parent) {
      if (scope.vars.has(name)) {
        scope.vars.set(name, union(scope.vars.get(name) ?? CLEAN, taint));
        return;
      }
    }
    this.vars.set(name, taint);
  }

  findConstant(name: string): string | undefined {
    for (let scope: Scope | undefined = this.self(); scope; scope = scope.parent) {
      const text = scope.constants.get(name);
      if (text !== undefined) return text;
    }
    return undefined;
  }

  findPath(name: string): string | undefined {
    for (let scope: Scope | undefined = this.self(); scope; scope = scope.parent) {
      const text = scope.paths.get(name);
      if (text !== undefined) return text;
    }
    return undefined;
  }

  findCondition(name: string): AstNode | undefined {
    for (let scope: Scope | undefined = this.self(); scope; scope = scope.parent) {
      const condition = scope.conditions.get(name);
      if (condition) return condition;
    }
    return undefined;
  }

  /** The instance a name holds: undefined when no scope here declares it (a module-level or imported name). */
  findInstance(name: string): Instance | null | undefined {
    for (let scope: Scope | undefined = this.self(); scope; scope = scope.parent) {
      const instance = scope.instances.get(name);
      if (instance !== undefined) return instance;
    }
    return undefined;
  }

  findFunction(name: string): AstNode | undefined {
    for (let scope: Scope | undefined = this.self(); scope; scope = scope.parent) {
      const fn = scope.functions.get(name);
      if (fn) return fn;
    }
    return undefined;
  }
}

export function newScope(): Scope {
  return new Scope();
}
