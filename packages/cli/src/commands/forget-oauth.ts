import { CliError } from '../client/run.js';
import { openCredentialStore, type OpenStoreOptions } from '../credentials/store.js';
import { forgetTokens } from '../oauth/flow.js';
import type { CommandIo } from '../terminal.js';
import { printJson } from '../ui/output.js';

/** `svc auth forget <url>`: removes the OAuth tokens stored for a remote MCP endpoint (oauth/flow.ts). */
export async function forgetOAuthCommand(io: CommandIo, url: string, options: { json?: boolean }, storeOptions: OpenStoreOptions = {}): Promise<number> {
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) throw new CliError(`not an http(s) URL: ${JSON.stringify(url)}`);
  const endpoint = new URL(url);
  const store = await openCredentialStore(io, storeOptions);
  const removed = await forgetTokens(store, endpoint);
  if (options.json) printJson(io, { endpoint: endpoint.href, removed });
  else io.stdout.write(removed ? `forgot the OAuth tokens for ${endpoint.href}\n` : `no OAuth tokens stored for ${endpoint.href}\n`);
  return 0;
}
