/**
 * What an attacker wants the model to read and hand over: the patterns the magic-parameter rule matches, and the
 * secret stores the description analyser (rules/description/) matches any verb against.
 * `specific` names a file or store no honest tool description needs to point the model at; `generic` names a kind
 * of secret that honest descriptions mention as a capability ("reads the API key from the environment").
 */
export const SPECIFIC_SENSITIVE =
  /(?:~|\$HOME|%USERPROFILE%|\/home\/\w+|\/Users\/\w+)?\/?\.ssh\b[\w./-]*|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|(?:^|[\s'"`(/~])\.env\b(?!\w)|\.aws\/(?:credentials|config)\b|\bmcp\.json\b|\bclaude_desktop_config\.json\b|\.cursor\/|\.npmrc\b|\.pypirc\b|\.netrc\b|\.git-credentials\b|\.kube\/config\b|\.docker\/config\.json\b|\/etc\/(?:passwd|shadow)\b|\.gnupg\b|\bkeychain\b|\bwallet\.dat\b|\bseed phrase\b|\blogin data\b|\bcookies\.sqlite\b/i;

import type { ToolParameter } from '../../scan/model.js';

/** A flag, a number or an enum cannot smuggle a file or a conversation out, whatever its description says. */
export function canCarryText(parameter: ToolParameter): boolean {
  if (parameter.enum && parameter.enum.length > 0) return false;
  return !/^(boolean|bool|number|integer|int|float)$/i.test(parameter.type ?? '');
}

export const GENERIC_SECRET =
  /\b(?:api[\s_-]?keys?|access[\s_-]?tokens?|auth(?:entication)?[\s_-]?tokens?|bearer\s+tokens?|secret[\s_-]?keys?|private[\s_-]?keys?|passwords?|passphrases?|credentials?|session\s+cookies?|environment\s+variables|env\s+vars)\b/i;

/** Words that turn a sentence into a request to move data: to a parameter, a URL, a message or another tool. */
export const TRANSFER =
  /\b(?:pass|send|include|put|attach|provide|append|forward|upload|post|paste|copy|embed|insert|add|fill|set)\b[^.\n]{0,80}\b(?:as|in|into|to|inside|within|with)\b/i;

/**
 * A sentence that addresses the model ("you must", "before using this tool", "make sure"). Imperative mood alone
 * ("Get recent messages", "Read the complete contents of a file") is how honest descriptions state capabilities.
 */
/**
 * Stores of secrets and private data, each with the words a tool whose purpose is that store uses (an SSH tool may
 * well read `~/.ssh/config`; a weather tool may not). The description analyser matches any verb against these.
 */
export interface SensitiveStore {
  label: string;
  pattern: RegExp;
  /** Words in a tool's name or stated purpose that make touching this store part of its job. */
  domain: readonly string[];
}

export const SENSITIVE_STORES: readonly SensitiveStore[] = [
  { label: 'SSH keys', pattern: /(?:~|\$HOME|%USERPROFILE%|\/home\/\w+|\/Users\/\w+|\/root)?\/?\.ssh\b[\w./-]*|\bid_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?\b|\bauthorized_keys\b|\bknown_hosts\b/i, domain: ['ssh', 'key', 'host', 'remote', 'server', 'deploy'] },
  { label: 'environment file', pattern: /(?:^|[\s'"`(/~])\.env(?:\.[\w-]+)?\b(?!\w)/i, domain: ['env', 'environment', 'dotenv', 'config', 'variable'] },
  { label: 'cloud credentials', pattern: /\.aws\/(?:credentials|config)\b|\.azure\/[\w./-]*|\.config\/gcloud[\w./-]*|application_default_credentials\.json|\bgcloud\/credentials\b|\.oci\/config\b|\.boto\b|service[-_]account[\w-]*\.json/i, domain: ['aws', 'azure', 'gcloud', 'gcp', 'cloud', 'credential', 's3', 'iam'] },
  { label: 'Kubernetes config', pattern: /\.kube\/config\b|\bkubeconfig\b/i, domain: ['kube', 'kubernetes', 'k8s', 'cluster', 'kubectl', 'pod'] },
  { label: 'MCP client config', pattern: /\bmcp\.json\b|\bclaude_desktop_config\.json\b|\.cursor\/[\w./-]*|\.codeium\/[\w./-]*|\.vscode\/mcp\.json|\.claude\.json\b/i, domain: ['mcp', 'config', 'cursor', 'claude'] },
  { label: 'package registry tokens', pattern: /\.npmrc\b|\.pypirc\b|\.netrc\b|\.git-credentials\b|\.docker\/config\.json\b|\.gem\/credentials\b|\.cargo\/credentials(?:\.toml)?\b|\.config\/gh\/hosts\.yml\b/i, domain: ['npm', 'registry', 'publish', 'pypi', 'docker', 'git', 'package', 'credential'] },
  { label: 'system password files', pattern: /\/etc\/(?:passwd|shadow|sudoers|gshadow|master\.passwd)\b|\bSAM\s+hive\b|\\config\\SAM\b/i, domain: ['user', 'account', 'system', 'admin', 'passwd'] },
  { label: 'GPG keyring', pattern: /\.gnupg\b[\w./-]*|\bsecring\.gpg\b|\bprivate-keys-v1\.d\b/i, domain: ['gpg', 'pgp', 'sign', 'encrypt', 'key'] },
  { label: 'keychain', pattern: /\bkeychains?\b|\blogin\.keychain(?:-db)?\b|\bcredential\s+manager\b|\bgnome-keyring\b|\bkwallet\b|\bsecret\s+service\b/i, domain: ['keychain', 'keyring', 'credential', 'password', 'secret', 'vault'] },
  { label: 'browser profile', pattern: /\blogin\s+data\b|\bcookies\.sqlite\b|\blogins\.json\b|\bkey[34]\.db\b|\b(?:chrome|chromium|firefox|edge|brave|safari)\b[^.\n]{0,30}\b(?:profiles?|cookies|passwords|saved\s+logins|history|local\s+storage|user\s+data)\b|\/(?:Default|User\s+Data)\/(?:Cookies|Login\s+Data|Web\s+Data|History)\b|\bdocument\.cookie\b|\blocalStorage\b/i, domain: ['browser', 'chrome', 'firefox', 'cookie', 'profile', 'bookmark', 'history', 'page', 'web'] },
  { label: 'crypto wallet', pattern: /\bwallet\.dat\b|\.electrum\b|\.bitcoin\b|\.ethereum\/keystore\b|\bmetamask\b|\bseed\s+phrases?\b|\bmnemonic(?:\s+phrases?)?\b|\brecovery\s+phrases?\b|\bprivate\s+keys?\s+of\s+(?:the|your|their)\s+wallet/i, domain: ['wallet', 'crypto', 'bitcoin', 'ethereum', 'solana', 'web3', 'blockchain', 'token', 'mnemonic'] },
  { label: 'shell history', pattern: /\.(?:bash|zsh|sh|python|psql|mysql|node_repl)_history\b|\.zhistory\b|\bConsoleHost_history\.txt\b/i, domain: ['history', 'shell', 'terminal', 'command'] },
  { label: 'private key file', pattern: /[\w./~-]*\.(?:pem|key|p12|pfx|jks|keystore|ppk)\b(?![\w-])|\bprivate[_-]key\b/i, domain: ['tls', 'ssl', 'certificate', 'cert', 'key', 'sign', 'crypto'] },
];
