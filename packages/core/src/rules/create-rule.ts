import type {
  Category,
  CodeFact,
  Finding,
  FlowStep,
  Manifest,
  ModelText,
  RemoteObservation,
  ScanMode,
  Severity,
  SourceFile,
  SourceLocation,
  TaintFlow,
  ToolDefinition,
  Workspace,
} from '../scan/model.js';
import type { LockEntry } from '../scan/lockfile.js';
import type { OwaspMcpId } from './owasp.js';

export interface RuleMeta {
  title: string;
  category: Category;
  /** Default severity; a finding may lower or raise it with a reason in its message. */
  severity: Severity;
  /** What the rule detects and why it matters (shown as SARIF help and in `svc rules`). */
  description: string;
  remediation: string;
  cwe: string[];
  owasp: OwaspMcpId;
  /** Modes the rule runs in. Most run in both; expensive or noisy ones only in deep. */
  modes: readonly ScanMode[];
  /** Confidence a finding starts with before any judge votes (0..1). */
  confidence: number;
  /**
   * Rules that report facets of one problem share a root cause: their findings in one file become one finding with
   * facets (scan/facets.ts), counted and scored once.
   */
  rootCause?: 'http-exposure';
  /**
   * The rule judges a live remote endpoint (RuleContext.remote) and never sees files: its malicious and benign cases
   * are real MCP servers in scan/remote/remote.test.ts and rules/remote-posture.test.ts, not fixture folders.
   */
  liveEndpoint?: true;
}

/** Everything a rule may look at. Read-only; rules report through `report`. */
export interface RuleContext {
  mode: ScanMode;
  workspace: Pick<Workspace, 'name' | 'version' | 'target' | 'metadata'>;
  files: readonly SourceFile[];
  manifests: readonly Manifest[];
  tools: readonly ToolDefinition[];
  /** Every text field the model reads, flattened (see scan/model-texts.ts). */
  modelTexts: readonly ModelText[];
  flows: readonly TaintFlow[];
  facts: readonly CodeFact[];
  /** A live remote endpoint's transport and access observations; absent for static scans. */
  remote?: readonly RemoteObservation[];
  /** The scan's clock (ScanOptions.clock): rules that judge age use it, never the real date. Absent: no age judged. */
  now?: Date;
  /** What mcp.lock pinned for this server (scan/lockfile.ts), when the scan was given a lock that names it. */
  pinned?: LockEntry;
  report(finding: FindingInput): void;
}

export interface FindingInput {
  message: string;
  evidence: string;
  severity?: Severity;
  confidence?: number;
  location?: SourceLocation;
  tool?: Finding['tool'];
  flow?: FlowStep[];
  /** Extra text mixed into the finding id when several findings share a location (e.g. two secrets on one line). */
  key?: string;
}

export interface Rule {
  id: string;
  meta: RuleMeta;
  check(context: RuleContext): void;
}

/** Rule ids are kebab-case and equal the file name under rules/ (checked by rules/index.test.ts). */
export function createRule(rule: Rule): Rule {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(rule.id)) throw new Error(`rule id must be kebab-case: ${rule.id}`);
  return rule;
}
