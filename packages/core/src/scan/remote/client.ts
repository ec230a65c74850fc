// Connecting to a remote MCP endpoint and listing what it shows the model. Listing only: no tool is called, no
// resource read, no prompt fetched. Streamable HTTP first; a server that answers it with a 4xx other than an auth
// refusal gets the older HTTP+SSE transport, as the SDK documents for backwards compatibility.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LATEST_PROTOCOL_VERSION, type Prompt, type Resource, type ResourceTemplate, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { SVC_VERSION } from '../../version.js';
import type { GuardedFetch, RemoteLimits } from './fetch.js';

export interface RemoteListing {
  transport: 'streamable-http' | 'sse';
  server?: { name: string; version: string };
  instructions?: string;
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  /** Listings that failed or were cut at the page limit: the scan is partial. */
  gaps: string[];
  /** The server declares tools but `tools/list` failed: what it exposes is unknown, so the endpoint is not graded. */
  toolsFailed: boolean;
}

/** Why the endpoint could not be listed, in words for the report; the transport's own errors are in `cause`. */
export class ConnectFailure extends Error {
  override name = 'ConnectFailure';
}

export async function listRemote(url: URL, headers: Record<string, string>, guard: GuardedFetch, limits: RemoteLimits): Promise<RemoteListing> {
  const requestInit = { headers };
  let client: Client;
  let transport: 'streamable-http' | 'sse' = 'streamable-http';
  try {
    client = await connect(new StreamableHTTPClientTransport(url, { fetch: guard.fetch, requestInit, reconnectionOptions: NO_RECONNECT }));
  } catch (error) {
    const answered = guard.exchanges.at(-1)?.status;
    // Only a server that answered, and not with an auth refusal, may speak the older transport.
    if (answered === undefined || answered === 401 || answered === 403 || answered < 400 || answered >= 500) throw error;
    transport = 'sse';
    try {
      client = await connect(new SSEClientTransport(url, { fetch: guard.fetch, requestInit }));
    } catch (sseError) {
      // The SSE error alone ("Non-200 status code") hides the first answer, which usually says what was wrong.
      throw new ConnectFailure(
        `it answered the Streamable HTTP initialize with HTTP ${answered} (${errorText(error)}) and the legacy HTTP+SSE transport failed too ` +
          `(${errorText(sseError)}): a gateway that wants a credential may answer this way`,
        { cause: sseError },
      );
    }
  }
  try {
    const capabilities = client.getServerCapabilities() ?? {};
    const gaps: string[] = [];
    const tools = capabilities.tools ? await allPages('tools/list', (cursor) => client.listTools(cursor), (page) => page.tools, limits, gaps) : [];
    const toolsFailed = gaps.some((gap) => gap.startsWith('tools/list failed'));
    const listing: RemoteListing = {
      transport,
      ...(client.getServerVersion() ? { server: { name: client.getServerVersion()!.name, version: client.getServerVersion()!.version } } : {}),
      ...(client.getInstructions() ? { instructions: client.getInstructions() } : {}),
      tools,
      prompts: capabilities.prompts ? await allPages('prompts/list', (cursor) => client.listPrompts(cursor), (page) => page.prompts, limits, gaps) : [],
      resources: capabilities.resources
        ? await allPages('resources/list', (cursor) => client.listResources(cursor), (page) => page.resources, limits, gaps)
        : [],
      resourceTemplates: capabilities.resources
        ? await allPages('resources/templates/list', (cursor) => client.listResourceTemplates(cursor), (page) => page.resourceTemplates, limits, gaps)
        : [],
      gaps,
      toolsFailed,
    };
    return listing;
  } finally {
    await close(client);
  }
}

// A listing is a handful of requests: a dropped stream is an error to report, not something to retry for minutes.
const NO_RECONNECT = { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 };

async function connect(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'svc', version: SVC_VERSION }, { capabilities: {} });
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
  return client;
}

async function close(client: Client): Promise<void> {
  const transport = client.transport;
  // End the server's session (a DELETE) so a scan leaves nothing behind on it.
  if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => undefined);
  await client.close().catch(() => undefined);
}

type Page = { nextCursor?: string };

/** Every page of one listing, following `nextCursor` up to the page limit; a failure keeps what came and notes the gap. */
async function allPages<P extends Page, T>(
  method: string,
  list: (params: { cursor?: string } | undefined) => Promise<P>,
  items: (page: P) => T[],
  limits: RemoteLimits,
  gaps: string[],
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  const seen = new Set<string>();
  for (let page = 0; page < limits.maxPages; page++) {
    let result: P;
    try {
      result = await list(cursor === undefined ? undefined : { cursor });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      gaps.push(`${method} failed on page ${page + 1}: ${message.length > 300 ? `${message.slice(0, 300)}…` : message}`);
      return out;
    }
    out.push(...items(result));
    cursor = result.nextCursor;
    if (cursor === undefined) return out;
    // A server that hands back a cursor it already gave would be listed for ever.
    if (seen.has(cursor)) {
      gaps.push(`${method} repeated a page cursor; listing stopped after ${page + 1} pages`);
      return out;
    }
    seen.add(cursor);
  }
  gaps.push(`${method} has more than ${limits.maxPages} pages; only the first ${limits.maxPages} were scanned`);
  return out;
}

/** The `initialize` request the Origin probe sends, as a client would. */
export function initializeBody(): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'svc', version: SVC_VERSION } },
  });
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}
