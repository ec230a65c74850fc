// Real MCP servers for the tests of live remote scans: the official SDK's McpServer behind its Streamable HTTP (or
// legacy SSE) server transport, on 127.0.0.1 and an ephemeral port. Tests only; nothing in the product imports this.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface TestTool {
  name: string;
  description: string;
  /** Parameter name → its description (a string parameter each). */
  parameters?: Record<string, string>;
}

export interface TestServerOptions {
  tools: TestTool[];
  instructions?: string;
  prompts?: Array<{ name: string; description: string }>;
  resources?: Array<{ name: string; uri: string; description: string }>;
  /** Requests need `Authorization: Bearer <token>`; others get 401. */
  token?: string;
  /** Answer 401 with a `WWW-Authenticate` naming OAuth protected-resource metadata (RFC 9728). */
  oauth?: boolean;
  /** false: accept any Origin (no DNS-rebinding protection). Default: only the server's own origin. */
  checkOrigin?: boolean;
  /** Add `Access-Control-Allow-Origin: *` and `Access-Control-Allow-Credentials: true` to every answer. */
  corsWildcardCredentials?: boolean;
  /** `sse`: only the legacy HTTP+SSE transport (GET /mcp opens the stream, POST /messages); POST /mcp answers 405. */
  transport?: 'streamable-http' | 'sse';
}

export interface TestServer {
  url: string;
  /** Every request the server received: method, path and headers. */
  requests: Array<{ method: string; path: string; headers: IncomingMessage['headers'] }>;
  /** Names of tools whose handler ran: a scan must leave this empty. */
  called: string[];
  close(): Promise<void>;
}

function mcpServer(options: TestServerOptions, called: string[]): McpServer {
  const server = new McpServer({ name: 'test-server', version: '1.0.0' }, options.instructions ? { instructions: options.instructions } : {});
  for (const tool of options.tools) {
    const shape = Object.fromEntries(Object.entries(tool.parameters ?? {}).map(([name, description]) => [name, z.string().describe(description)]));
    server.registerTool(tool.name, { description: tool.description, inputSchema: shape }, () => {
      called.push(tool.name);
      return { content: [{ type: 'text', text: 'called' }] };
    });
  }
  for (const prompt of options.prompts ?? []) {
    server.registerPrompt(prompt.name, { description: prompt.description }, () => ({ messages: [] }));
  }
  for (const resource of options.resources ?? []) {
    server.registerResource(resource.name, resource.uri, { description: resource.description }, () => {
      called.push(`resource:${resource.name}`);
      return { contents: [] };
    });
  }
  return server;
}

export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const called: string[] = [];
  const sse = new Map<string, SSEServerTransport>();
  let origin = '';

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push({ method: req.method ?? '', path, headers: req.headers });
    if (options.corsWildcardCredentials) {
      res.setHeader('access-control-allow-origin', '*');
      res.setHeader('access-control-allow-credentials', 'true');
    }
    if (options.token !== undefined || options.oauth) {
      if (options.oauth || req.headers.authorization !== `Bearer ${options.token}`) {
        const challenge = options.oauth ? `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` : 'Bearer realm="test"';
        res.writeHead(401, { 'www-authenticate': challenge, 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
        return;
      }
    }
    if (options.transport === 'sse') {
      if (req.method === 'GET' && path === '/mcp') {
        const transport = new SSEServerTransport('/messages', res);
        sse.set(transport.sessionId, transport);
        res.on('close', () => sse.delete(transport.sessionId));
        await mcpServer(options, called).connect(transport);
        return;
      }
      if (req.method === 'POST' && path === '/messages') {
        const transport = sse.get(new URL(req.url ?? '/', 'http://x').searchParams.get('sessionId') ?? '');
        if (transport) return transport.handlePostMessage(req, res);
        res.writeHead(404).end();
        return;
      }
      res.writeHead(405).end();
      return;
    }
    // Stateless Streamable HTTP: a server and transport per request, as the SDK's examples do.
    const server = mcpServer(options, called);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      ...(options.checkOrigin === false ? {} : { enableDnsRebindingProtection: true, allowedOrigins: [origin] }),
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };

  const http: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/mcp`,
    requests,
    called,
    close: async () => {
      for (const transport of sse.values()) await transport.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

export interface TestProxy {
  url: string;
  /** The `host:port` of every CONNECT tunnel the proxy opened, in order. */
  tunnels: string[];
  /** `METHOD /path` of each plain-HTTP request sent through a tunnel (https tunnels are opaque). */
  requests: string[];
  close(): Promise<void>;
}

/**
 * A forward proxy on 127.0.0.1 as corporate networks run them: it opens CONNECT tunnels (undici's proxy agent tunnels
 * http and https alike) and records each one, so a test can see what went through it.
 */
export async function startTestProxy(): Promise<TestProxy> {
  const tunnels: string[] = [];
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const proxy = createServer((_request, response) => response.writeHead(405).end());
  proxy.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    const target = request.url ?? '';
    tunnels.push(target);
    const separator = target.lastIndexOf(':');
    const upstream = connect(Number(target.slice(separator + 1)), target.slice(0, separator).replace(/^\[|\]$/g, ''), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
      client.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('latin1').matchAll(/^(GET|POST|PUT|DELETE|OPTIONS|HEAD) (\S+) HTTP\/1\.1\r$/gm)) requests.push(`${line[1]} ${line[2]}`);
      });
    });
    sockets.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    upstream.on('error', end);
    client.on('error', end);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    tunnels,
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
