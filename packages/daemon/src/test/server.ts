import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createApp } from '../app.js';
import type { AppEnv } from '../env.js';
import type { LogFields, Logger } from '../logger.js';
import { buildServices, type ServiceOptions, type Services } from '../services.js';
import { migrate, openDatabase, type SqliteDatabase } from '../store/database.js';
import { TEST_CLOCK_START } from './clock.js';

export const TEST_JWT_SECRET = 'test-secret-0123456789abcdef0123456789';

export interface TestServer {
  url: string;
  db: SqliteDatabase;
  services: Services;
  logs: { level: 'info' | 'error'; message: string; fields: LogFields }[];
  /** Moves the services' clock (it starts at TEST_CLOCK_START and stands still) forward, e.g. past a rate-limit window. */
  advance(ms: number): void;
  close(): Promise<void>;
}

/**
 * A real svcd app on 127.0.0.1 with a fresh SQLite file in a temp dir; `override` swaps services (e.g. a failing
 * one); `extend` adds routes a test needs (e.g. one behind a middleware no real route uses yet).
 */
export async function startTestServer(
  override: (services: Services) => Partial<Services> = () => ({}),
  extend: (app: OpenAPIHono<AppEnv>) => void = () => {},
  options: Partial<Omit<ServiceOptions, 'db' | 'logger' | 'clock'>> = {},
): Promise<TestServer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'svcd-http-'));
  const db = openDatabase(path.join(dir, 'svc.db'));
  migrate(db);
  const logs: TestServer['logs'] = [];
  const logger: Logger = {
    info: (message, fields = {}) => logs.push({ level: 'info', message, fields }),
    error: (message, fields = {}) => logs.push({ level: 'error', message, fields }),
  };
  let nowMs = TEST_CLOCK_START.getTime();
  const base = buildServices({ jwtSecret: TEST_JWT_SECRET, ...options, db, logger, clock: () => new Date(nowMs) });
  const services = { ...base, ...override(base) };
  const app = createApp(services);
  extend(app);
  const server = await new Promise<ServerType>((resolve) => {
    const started: ServerType = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  await services.runner.start();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    db,
    services,
    logs,
    advance(ms) {
      nowMs += ms;
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Open event streams would hold close() forever.
      if ('closeAllConnections' in server) server.closeAllConnections();
      await Promise.all([closed, services.runner.stop(0)]);
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
