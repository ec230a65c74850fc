import { visibleLine } from '@svc/core';
import type { ApiClient } from '../client/api-client.js';
import { openCredentialStore } from '../credentials/store.js';
import type { OpenStoreOptions } from '../credentials/store.js';
import type { CommandIo } from '../terminal.js';
import { printJson, textTable } from '../ui/output.js';

// API keys (the spec's "dashboard", session routes POST/GET/DELETE /keys). The secret is shown once, at creation.

export interface KeysCreateOptions {
  label: string;
  scope?: string[];
  expiresInDays?: number;
  ip?: string[];
  save?: boolean;
  json?: boolean;
}

interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  label: string;
  scopes: string[];
  expires_at: string;
  ip_allowlist: string[];
}

export interface KeySummary {
  id: string;
  prefix: string;
  last4: string;
  label: string;
  scopes: string[];
  expires_at: string;
  ip_allowlist: string[];
  last_used_at: string | null;
  created_at: string;
  revoked_at: string | null;
}

/**
 * The key alone goes to stdout (so `KEY=$(svc keys create --label ci)` captures just it); what it is and the
 * once-only warning go to stderr. `--save` keeps it for `svc scan --remote` against this server.
 */
export async function keysCreateCommand(io: CommandIo, client: ApiClient, options: KeysCreateOptions, store: OpenStoreOptions = {}): Promise<number> {
  const body = {
    label: options.label,
    ...(options.scope === undefined || options.scope.length === 0 ? {} : { scopes: options.scope }),
    ...(options.expiresInDays === undefined ? {} : { expires_in_days: options.expiresInDays }),
    ...(options.ip === undefined || options.ip.length === 0 ? {} : { ip_allowlist: options.ip }),
  };
  // The store is opened first, so a --save that cannot be honoured fails before a key exists that nobody kept.
  const credentials = options.save === true ? await openCredentialStore(io, store) : undefined;
  const created = await client.request<CreatedKey>('POST', '/keys', { body, signal: io.signal });
  if (credentials !== undefined) await credentials.set(client.server, 'api-key', created.key);

  if (options.json) {
    printJson(io, { ...created, saved: credentials?.kind ?? null });
  } else {
    io.stdout.write(`${created.key}\n`);
    io.stderr.write(
      `svc: created key ${created.id} "${visibleLine(created.label)}" (${created.scopes.join(', ')}; expires ${created.expires_at}${created.ip_allowlist.length > 0 ? `; only from ${created.ip_allowlist.join(', ')}` : ''})\n`,
    );
    io.stderr.write(
      credentials === undefined
        ? 'svc: this is the only time the key is shown; store it now (or create it with --save)\n'
        : `svc: saved in the ${credentials.kind === 'keychain' ? 'OS keychain' : 'credentials file'} for ${client.server}; \`svc scan --remote\` uses it\n`,
    );
  }
  return 0;
}

export async function keysListCommand(io: CommandIo, client: ApiClient, options: { all?: boolean; json?: boolean }): Promise<number> {
  const keys = await client.request<KeySummary[]>('GET', '/keys', { query: { all: options.all === true ? 'true' : undefined }, signal: io.signal });
  if (options.json) {
    printJson(io, keys);
    return 0;
  }
  io.stdout.write(renderKeyTable(keys));
  return 0;
}

export function renderKeyTable(keys: KeySummary[]): string {
  if (keys.length === 0) return 'no API keys (create one with `svc keys create --label <name>`)\n';
  const rows = [
    ['ID', 'LABEL', 'KEY', 'SCOPES', 'EXPIRES', 'LAST USED', ...(keys.some((key) => key.revoked_at !== null) ? ['REVOKED'] : [])],
    ...keys.map((key) => [
      key.id,
      visibleLine(key.label),
      `${key.prefix}…${key.last4}`,
      key.scopes.join(','),
      key.expires_at.slice(0, 10),
      key.last_used_at === null ? 'never' : key.last_used_at.slice(0, 16).replace('T', ' '),
      ...(keys.some((k) => k.revoked_at !== null) ? [key.revoked_at === null ? '' : key.revoked_at.slice(0, 10)] : []),
    ]),
  ];
  return `${textTable(rows)}\n${keys.length} key${keys.length === 1 ? '' : 's'}\n`;
}

export async function keysRevokeCommand(io: CommandIo, client: ApiClient, id: string, options: { json?: boolean }): Promise<number> {
  const result = await client.request<{ id: string; revoked: true }>('DELETE', `/keys/${encodeURIComponent(id)}`, { signal: io.signal });
  if (options.json) printJson(io, result);
  else io.stdout.write(`revoked key ${result.id}\n`);
  return 0;
}
