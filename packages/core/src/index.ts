// The public surface of @svc/core: explicit exports only.
export * from './scan/model.js';
export type { ScanEvent, ScanEventListener, Stage } from './scan/events.js';
export { STAGES } from './scan/events.js';
export { describeError, scanInputs, scanTarget, scanWorkspace, targetLabel, type ScanOptions } from './scan/engine.js';
export type { WorkerPoolOptions } from './scan/target-pool.js';
export { CONFIG_FILE, createBaseline, readBaseline, type Baseline, type SuppressionOptions } from './scan/suppressions.js';
export { inventoryWorkspace, DEFAULT_INVENTORY_LIMITS, type Inventory, type InventoryLimits } from './scan/inventory.js';
export { scopeCode, type CodeScope } from './scan/scope.js';
export { ANALYZERS } from './scan/analysis/index.js';
export { RAW_TRANSFER } from './scan/analysis/javascript/ast.js';
export type { LanguageAnalyzer, LanguageAnalysis, AnalyzeOptions } from './scan/analysis/analyzer.js';
export { parseTarget, expandTarget, fetchTarget, TargetError, type GitNetworkPolicy, type RemoteOptions, type SourceOptions } from './scan/target.js';
export { isPublicAddress, isLoopbackHost } from './scan/sources/addresses.js';
export { hasCredentials, parseHeader, urlCarriesCredentials } from './scan/remote/headers.js';
export { requiresOAuthSignIn } from './scan/remote/scan.js';
export { DEFAULT_REMOTE_LIMITS, proxyAgent, proxyFromEnv, type ProxySettings, type RemoteLimits } from './scan/remote/fetch.js';
export { isScannable, removeAllTempDirs, removeAllTempDirsSync } from './scan/target.js';
export { killAllProcessGroups, killAllProcessGroupsSync, killProcessGroup, watchProcessGroups, type ProcessGroupEvent } from './scan/sources/process-groups.js';
export { discoverConfigs, type DiscoveredConfig } from './scan/discover.js';
export { ArchiveError, DEFAULT_ARCHIVE_LIMITS, type ArchiveLimits } from './scan/archive.js';
export { modelTexts } from './scan/model-texts.js';
export {
  canonicalHash,
  createLockfile,
  formatLockfile,
  LOCKFILE_NAME,
  LOCKFILE_VERSION,
  lockEntryFor,
  LockfileError,
  parseLockfile,
  pinReport,
  readLockfile,
  serverKey,
  type LockEntry,
  type Lockfile,
  type PinnedDefinition,
} from './scan/lockfile.js';
export { driftOf, definitionChanges, wordDiff, type Drift, type DriftChange } from './scan/drift.js';
export { scoreFindings, gradeForScore, type ScoreResult } from './scan/score.js';
export { RULES, getRule, ruleCatalog, type RuleCatalogEntry } from './rules/index.js';
export { createRule, type Rule, type RuleMeta, type RuleContext, type FindingInput } from './rules/create-rule.js';
export { OWASP_MCP_TOP_10, type OwaspMcpId } from './rules/owasp.js';
export { runPanel, defaultJudges, type Judge, type JudgeContext, type PanelResult } from './judges/panel.js';
export { REPORT_SCHEMA_VERSION, type ScanRun, type TargetFailure } from './report/schema.js';
export { REPORT_SCHEMA_ID, reportJsonSchema, scanReportSchema, scanRunSchema } from './report/schema.js';
export { coverageNote, describeWhere, failsRun, meetsThreshold, scoreLabel, targetTitle, textTable, visible, visibleLine } from './report/common.js';
export type { FailPolicy } from './report/common.js';
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
export { isoWeek, WINDOW_KINDS, windowKey, windowReset, windowStart, type WindowKind } from './quota/windows.js';
export { bucketsFor, REQUEST_LIMIT, SCAN_LIMITS } from './quota/limits.js';
export type { ApiRequest, BucketPlan, BucketRequest, QuotaKind, QuotaRefusal, ScanSubmitRequest, SubjectKind, TierScanLimits } from './quota/limits.js';
export { decideQuota, MemoryQuotaStore, rateLimitDetails, rateLimitError, rateLimitHeaders, tighterStanding } from './quota/engine.js';
export type { Blocked, BucketCounts, BucketStanding, QuotaDecision, QuotaStore } from './quota/engine.js';
export {
  DEFAULT_ERROR_MESSAGES,
  ERROR_CODES,
  ERROR_STATUS,
  errorEnvelope,
  invalidField,
  isErrorCode,
  parseErrorEnvelope,
  rateLimited,
  ServiceError,
  successEnvelope,
  toServiceError,
} from './domain/errors.js';
export type { ErrorBody, ErrorCode, ErrorDetails, ErrorEnvelope, RateLimitDetails, RateLimitWindow, SuccessEnvelope } from './domain/errors.js';
export {
  ACCOUNT_TIERS,
  canCreateTeam,
  canMintApiKeys,
  compareTiers,
  effectiveTier,
  hasPrivateScanBudget,
  isPaidTier,
  isTeamTier,
  isTier,
  PAID_TIERS,
  parseTier,
  TEAM_TIERS,
  TIER_DISPLAY_NAMES,
  tierRank,
  TIERS,
} from './domain/tiers.js';
export type { AccountTier, PaidTier, TeamTier, Tier } from './domain/tiers.js';
export { BASE_SCOPES, DEFAULT_KEY_SCOPES, expandScopes, hasScope, isScope, parseScopes, ROUTE_SCOPES, SCOPES, UMBRELLA_SCOPES } from './domain/scopes.js';
export type { BaseScope, ParseScopesResult, Scope, UmbrellaScope } from './domain/scopes.js';
export { constantTimeEqualHex, hashSecret } from './domain/secret-hash.js';
export { unsafeNameCharacter } from './domain/display-text.js';
export {
  API_KEY_DISPLAY_PREFIX_LENGTH,
  API_KEY_LENGTH,
  API_KEY_PREFIX,
  canCreateKey,
  checkKeyFormat,
  DEFAULT_KEY_EXPIRY_DAYS,
  generateApiKey,
  hashApiKey,
  isKeyUsable,
  LAST_USED_WRITE_INTERVAL_MS,
  LEGACY_API_KEY_PREFIX,
  LEGACY_KEYS_RETIRED_AT,
  looksLikeApiKey,
  MAX_ACTIVE_KEYS,
  MAX_KEY_EXPIRY_DAYS,
  MIN_KEY_EXPIRY_DAYS,
  resolveExpiry,
  shouldWriteLastUsed,
} from './domain/api-key.js';
export type { GeneratedApiKey, KeyCreationDecision, KeyFormatCheck, RandomBytes } from './domain/api-key.js';
export { clientIp, isAllowed, MAX_ALLOWLIST_ENTRIES, normalizeCidr, parseAllowlist, parseTrustedProxies, slash24 } from './domain/ip-allowlist.js';
export type { CidrResult } from './domain/ip-allowlist.js';
export {
  canInvite,
  canManageTeam,
  canRemove,
  canRevokeInvite,
  canTransfer,
  checkAcceptInvite,
  checkInvite,
  emailsMatch,
  generateInviteToken,
  INVITE_LIMITS,
  INVITE_ROLES,
  INVITE_TTL_DAYS,
  inviteExpiresAt,
  isInviteExpired,
  isInviteRole,
  isTeamRole,
  normalizeEmail,
  ROLES_AFTER_TRANSFER,
  TEAM_ROLES,
} from './domain/team-rules.js';
export type { AcceptDecision, InviteDecision, InviteRole, RemoveDecision, TeamRole, TransferDecision } from './domain/team-rules.js';
