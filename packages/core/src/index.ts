// The public surface of @svc/core: explicit exports only.
export * from './scan/model.js';
export type { ScanEvent, ScanEventListener, Stage } from './scan/events.js';
export { STAGES } from './scan/events.js';
export { scanInputs, scanTarget, scanWorkspace, targetLabel, type ScanOptions } from './scan/engine.js';
export { inventoryWorkspace, DEFAULT_INVENTORY_LIMITS, type Inventory, type InventoryLimits } from './scan/inventory.js';
export { ANALYZERS } from './scan/analysis/index.js';
export type { LanguageAnalyzer, LanguageAnalysis, AnalyzeOptions } from './scan/analysis/analyzer.js';
export { parseTarget, expandTarget, fetchTarget, TargetError, type SourceOptions } from './scan/target.js';
export { isScannable, removeAllTempDirs, removeAllTempDirsSync } from './scan/target.js';
export { discoverConfigs, type DiscoveredConfig } from './scan/discover.js';
export { ArchiveError, DEFAULT_ARCHIVE_LIMITS, type ArchiveLimits } from './scan/archive.js';
export { modelTexts } from './scan/model-texts.js';
export { scoreFindings, gradeForScore, type Grade, type ScoreResult } from './scan/score.js';
export { RULES, getRule, ruleCatalog, type RuleCatalogEntry } from './rules/index.js';
export { createRule, type Rule, type RuleMeta, type RuleContext, type FindingInput } from './rules/create-rule.js';
export { OWASP_MCP_TOP_10, type OwaspMcpId } from './rules/owasp.js';
export { runPanel, defaultJudges, type Judge, type JudgeContext, type PanelResult } from './judges/panel.js';
export { REPORT_SCHEMA_VERSION, type ScanRun, type TargetFailure } from './report/schema.js';
export { REPORT_SCHEMA_ID, reportJsonSchema, scanReportSchema, scanRunSchema } from './report/schema.js';
export { describeWhere, visible, visibleLine } from './report/common.js';
export {
  formatRun,
  isReportFormat,
  REPORT_FORMATS,
  REPORTERS,
  toSarif,
  type Reporter,
  type ReporterOptions,
  type ReportFormat,
} from './report/index.js';
export { SVC_VERSION } from './version.js';
