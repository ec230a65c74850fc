import { randomUUID } from 'node:crypto';
import type { AccountTier } from '@svc/core';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { expect } from 'vitest';
import type { TestServer } from './server.js';

// Small helpers for HTTP tests against startTestServer: callers, credentials, error bodies and SSE.

export interface ErrorBody {
  success: false;
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/** The response is exactly the error envelope of spec 2.1 with this status and code; returns its `error`. */
export async function expectError(response: Response, status: number, code: string): Promise<ErrorBody['error']> {
  expect(response.headers.get('content-type')).toMatch(/application\/json/);
  const body = (await response.json()) as ErrorBody;
  expect({ status: response.status, code: body.error.code }).toEqual({ status, code });
  expect(body.success).toBe(false);
  expect(Object.keys(body)).toEqual(['success', 'error']);
  return body.error;
}

/** A user of `tier` created directly in the store, with a session token. */
export async function userWithSession(server: TestServer, tier: AccountTier, email = `${randomUUID()}@example.com`) {
  const user = await server.services.users.create({ email, tier, now: server.services.clock() });
  const { token } = await server.services.sessions.issue(user);
  return { user, token };
}

export function call(
  server: TestServer,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** An API key minted through POST /keys, as a client would. */
export async function createKey(server: TestServer, sessionToken: string, body: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
  const response = await call(server, 'POST', '/keys', sessionToken, { label: 'ci', ...body });
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: { id: string; key: string } }).data;
}

/**
 * Reads an event stream until `until` says stop (or the server ends it), then cancels the request. Comment lines
 * (heartbeats) are counted separately, since a parser does not report them as events.
 */
export async function readStream(
  response: Response,
  until: (events: EventSourceMessage[]) => boolean = () => false,
): Promise<{ events: EventSourceMessage[]; comments: number }> {
  const events: EventSourceMessage[] = [];
  let comments = 0;
  const parser = createParser({ onEvent: (event) => events.push(event), onComment: () => comments++ });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  try {
    while (!until(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(value);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return { events, comments };
}
