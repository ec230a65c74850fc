// The rule registry: one import per rule file, in category order. rules/index.test.ts checks that every file under
// rules/ is registered, that ids equal file names, and that docs/rules.md lists the same catalog.
import type { Rule } from './create-rule.js';
import toolPoisoningDirectives from './tool-poisoning-directives.js';
import toolPoisoningSensitiveAccess from './tool-poisoning-sensitive-access.js';
import toolHiddenBehaviour from './tool-hidden-behaviour.js';
import hiddenUnicode from './hidden-unicode.js';
import ansiEscapeSequences from './ansi-escape-sequences.js';
import toolShadowing from './tool-shadowing.js';
import toolDescriptionFromNetwork from './tool-description-from-network.js';
import toolDrift from './tool-drift.js';
import exfilMagicParameter from './exfil-magic-parameter.js';
import hardcodedSecret from './hardcoded-secret.js';
import installScriptExecution from './install-script-execution.js';
import obfuscatedModelText from './obfuscated-model-text.js';
import typosquatPackage from './typosquat-package.js';
import unpinnedNpxConfig from './unpinned-npx-config.js';
import commandInjection from './command-injection.js';
import argumentInjection from './argument-injection.js';
import unrestrictedShellTool from './unrestricted-shell-tool.js';
import codeInjection from './code-injection.js';
import pathTraversal from './path-traversal.js';
import unrestrictedFilesystemTool from './unrestricted-filesystem-tool.js';
import ssrf from './ssrf.js';
import sqlInjection from './sql-injection.js';
import secretInToolResult from './secret-in-tool-result.js';
import secretInLog from './secret-in-log.js';
import missingObjectAuthorization from './missing-object-authorization.js';
import sensitiveDataExfiltration from './sensitive-data-exfiltration.js';
import fileExfiltrationTool from './file-exfiltration-tool.js';
import hardcodedExfilEndpoint from './hardcoded-exfil-endpoint.js';
import linkPreviewExfiltration from './link-preview-exfiltration.js';
import decodedPayloadExecution from './decoded-payload-execution.js';
import tlsVerificationDisabled from './tls-verification-disabled.js';
import httpTransportExposed from './http-transport-exposed.js';
import missingOriginValidation from './missing-origin-validation.js';
import corsWildcard from './cors-wildcard.js';
import suppressionWithoutReason from './suppression-without-reason.js';
import resourceExhaustion from './resource-exhaustion.js';
import remotePlaintextHttp from './remote-plaintext-http.js';
import remoteNoAuth from './remote-no-auth.js';
import remoteSessionIdInUrl from './remote-session-id-in-url.js';
import remoteDnsRebinding from './remote-dns-rebinding.js';
import remoteCorsCredentials from './remote-cors-credentials.js';
import remoteTlsError from './remote-tls-error.js';

export const RULES: readonly Rule[] = [
  toolPoisoningDirectives,
  toolPoisoningSensitiveAccess,
  toolHiddenBehaviour,
  hiddenUnicode,
  ansiEscapeSequences,
  toolShadowing,
  toolDescriptionFromNetwork,
  toolDrift,
  exfilMagicParameter,
  commandInjection,
  argumentInjection,
  unrestrictedShellTool,
  codeInjection,
  pathTraversal,
  unrestrictedFilesystemTool,
  ssrf,
  sqlInjection,
  secretInToolResult,
  secretInLog,
  missingObjectAuthorization,
  sensitiveDataExfiltration,
  fileExfiltrationTool,
  hardcodedExfilEndpoint,
  linkPreviewExfiltration,
  decodedPayloadExecution,
  tlsVerificationDisabled,
  httpTransportExposed,
  missingOriginValidation,
  corsWildcard,
  remotePlaintextHttp,
  remoteNoAuth,
  remoteSessionIdInUrl,
  remoteDnsRebinding,
  remoteCorsCredentials,
  remoteTlsError,
  hardcodedSecret,
  installScriptExecution,
  obfuscatedModelText,
  typosquatPackage,
  unpinnedNpxConfig,
  suppressionWithoutReason,
  resourceExhaustion,
];

const byId = new Map(RULES.map((rule) => [rule.id, rule]));

export function getRule(id: string): Rule | undefined {
  return byId.get(id);
}

/** A rule as the catalog serves it (`svc rules`, `GET /api/v1/rules/catalog`, SARIF tool.driver.rules). */
export interface RuleCatalogEntry {
  id: string;
  title: string;
  category: Rule['meta']['category'];
  severity: Rule['meta']['severity'];
  description: string;
  remediation: string;
  cwe: string[];
  owasp: Rule['meta']['owasp'];
  modes: Rule['meta']['modes'];
}

export function ruleCatalog(): RuleCatalogEntry[] {
  return RULES.map(({ id, meta }) => ({
    id,
    title: meta.title,
    category: meta.category,
    severity: meta.severity,
    description: meta.description,
    remediation: meta.remediation,
    cwe: meta.cwe,
    owasp: meta.owasp,
    modes: meta.modes,
  }));
}
