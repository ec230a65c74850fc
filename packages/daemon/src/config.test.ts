import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, defaultDataDir, ensureDataDir, loadConfig, loadJwtSecret, type ConfigEnvironment } from './config.js';

const linux = (env: Record<string, string> = {}): ConfigEnvironment => ({ env, platform: 'linux', home: '/home/ada' });

describe('loadConfig', () => {
  it('uses the documented defaults', () => {
    const config = loadConfig({}, linux());
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(7878);
    expect(config.dataDir).toBe('/home/ada/.local/share/svc');
    expect(config.databasePath).toBe('/home/ada/.local/share/svc/svc.db');
    expect(config.jwtSecret).toBeUndefined();
    expect(config.smtpUrl).toBeUndefined();
    expect(config.trustedProxies).toEqual([]);
    expect(config.scanRoots).toEqual([]);
    expect(config.stripe).toEqual({ secretKey: undefined, webhookSecret: undefined, apiUrl: undefined, returnUrl: 'http://127.0.0.1:7878/billing/return' });
  });

  it('reads every SVC_* variable', () => {
    const config = loadConfig(
      {},
      linux({
        SVC_HOST: '0.0.0.0',
        SVC_PORT: '9000',
        SVC_DATA_DIR: '/srv/svc',
        SVC_JWT_SECRET: 'x'.repeat(40),
        SVC_SMTP_URL: 'smtps://u:p@mail.example.com:465',
        SVC_MAIL_FROM: 'scanner@example.com',
        SVC_TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.1',
        SVC_SCAN_ROOTS: '/srv/code:/home/ada/src/',
        SVC_STRIPE_SECRET_KEY: 'sk_test_1',
        SVC_STRIPE_WEBHOOK_SECRET: 'whsec_1',
      }),
    );
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 9000,
      dataDir: '/srv/svc',
      jwtSecret: 'x'.repeat(40),
      smtpUrl: 'smtps://u:p@mail.example.com:465',
      mailFrom: 'scanner@example.com',
      trustedProxies: ['10.0.0.0/8', '192.168.1.1/32'],
      scanRoots: ['/srv/code', '/home/ada/src'],
      stripe: { secretKey: 'sk_test_1', webhookSecret: 'whsec_1' },
    });
  });

  it('lets flags override the environment', () => {
    const config = loadConfig({ host: '::1', port: '0', dataDir: '/tmp/x' }, linux({ SVC_HOST: '0.0.0.0', SVC_PORT: '9000', SVC_DATA_DIR: '/srv' }));
    expect(config).toMatchObject({ host: '::1', port: 0, dataDir: '/tmp/x' });
  });

  it.each(['-1', '65536', 'http', '80x', '1.5'])('refuses the port %s', (port) => {
    expect(() => loadConfig({}, linux({ SVC_PORT: port }))).toThrow(/SVC_PORT must be a port number/);
    expect(() => loadConfig({ port }, linux())).toThrow(/--port must be a port number/);
  });

  it('refuses a bad trusted proxy entry with a clear message', () => {
    expect(() => loadConfig({}, linux({ SVC_TRUSTED_PROXIES: '10.0.0.0/8,not-an-ip' }))).toThrow(ConfigError);
    expect(() => loadConfig({}, linux({ SVC_TRUSTED_PROXIES: 'not-an-ip' }))).toThrow(/SVC_TRUSTED_PROXIES/);
  });

  it('refuses a short JWT secret, a non-SMTP URL and relative scan roots', () => {
    expect(() => loadConfig({}, linux({ SVC_JWT_SECRET: 'short' }))).toThrow(/at least 32 characters/);
    expect(() => loadConfig({}, linux({ SVC_SMTP_URL: 'https://mail.example.com' }))).toThrow(/smtp: or smtps:/);
    expect(() => loadConfig({}, linux({ SVC_SMTP_URL: 'not a url' }))).toThrow(/SVC_SMTP_URL/);
    expect(() => loadConfig({}, linux({ SVC_SCAN_ROOTS: 'src' }))).toThrow(/not an absolute path/);
  });
});

describe('scan pool settings', () => {
  it('defaults SVC_SCAN_WORKERS to the CPUs minus one, between 1 and 4, and the timeout to 300 s', () => {
    expect(loadConfig({}, { ...linux(), parallelism: 1 }).scanWorkers).toBe(1);
    expect(loadConfig({}, { ...linux(), parallelism: 3 }).scanWorkers).toBe(2);
    expect(loadConfig({}, { ...linux(), parallelism: 64 }).scanWorkers).toBe(4);
    expect(loadConfig({}, linux()).scanWorkers).toBeGreaterThanOrEqual(1);
    expect(loadConfig({}, linux()).scanTimeoutSeconds).toBe(300);
  });

  it('reads SVC_SCAN_WORKERS and SVC_SCAN_TIMEOUT_SECONDS', () => {
    const config = loadConfig({}, { ...linux({ SVC_SCAN_WORKERS: ' 8 ', SVC_SCAN_TIMEOUT_SECONDS: '60' }), parallelism: 2 });
    expect(config).toMatchObject({ scanWorkers: 8, scanTimeoutSeconds: 60 });
  });

  it.each(['0', '-1', '1.5', 'four', '257'])('refuses SVC_SCAN_WORKERS=%s', (value) => {
    expect(() => loadConfig({}, linux({ SVC_SCAN_WORKERS: value }))).toThrow(ConfigError);
    expect(() => loadConfig({}, linux({ SVC_SCAN_WORKERS: value }))).toThrow(/SVC_SCAN_WORKERS must be a whole number from 1 to 256/);
  });

  it.each(['0', '5m', '86401', '1e3'])('refuses SVC_SCAN_TIMEOUT_SECONDS=%s', (value) => {
    expect(() => loadConfig({}, linux({ SVC_SCAN_TIMEOUT_SECONDS: value }))).toThrow(/SVC_SCAN_TIMEOUT_SECONDS must be a whole number from 1 to 86400/);
  });
});

describe('defaultDataDir', () => {
  it('follows each platform', () => {
    expect(defaultDataDir(linux({ XDG_DATA_HOME: '/data' }))).toBe('/data/svc');
    expect(defaultDataDir(linux({ XDG_DATA_HOME: 'relative' }))).toBe('/home/ada/.local/share/svc');
    expect(defaultDataDir({ env: {}, platform: 'darwin', home: '/Users/ada' })).toBe('/Users/ada/Library/Application Support/svc');
    expect(defaultDataDir({ env: { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, platform: 'win32', home: 'C:\\Users\\ada' })).toBe(
      'C:\\Users\\ada\\AppData\\Roaming\\svc',
    );
  });
});

describe('loadJwtSecret', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('generates a secret once, keeps it with mode 0600 and reuses it', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'svcd-config-'));
    const dataDir = path.join(dir, 'data');
    ensureDataDir(dataDir);
    const first = loadJwtSecret({ dataDir, jwtSecret: undefined });
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    const file = path.join(dataDir, 'jwt-secret');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).trim()).toBe(first);
    expect(loadJwtSecret({ dataDir, jwtSecret: undefined })).toBe(first);
  });

  it('prefers SVC_JWT_SECRET and refuses a truncated secret file', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'svcd-config-'));
    expect(loadJwtSecret({ dataDir: dir, jwtSecret: 'y'.repeat(32) })).toBe('y'.repeat(32));
    await writeFile(path.join(dir, 'jwt-secret'), 'abc\n');
    expect(() => loadJwtSecret({ dataDir: dir as string, jwtSecret: undefined })).toThrow(/too short/);
  });
});

describe('Stripe settings', () => {
  it('takes both secrets, the API URL and the return URL', () => {
    const config = loadConfig(
      {},
      linux({
        SVC_HOST: '0.0.0.0',
        SVC_PORT: '9000',
        SVC_STRIPE_SECRET_KEY: 'rk_live_abc',
        SVC_STRIPE_WEBHOOK_SECRET: 'whsec_abc',
        SVC_STRIPE_API_URL: 'http://127.0.0.1:12111',
      }),
    );
    expect(config.stripe).toEqual({
      secretKey: 'rk_live_abc',
      webhookSecret: 'whsec_abc',
      apiUrl: 'http://127.0.0.1:12111',
      // A browser cannot open 0.0.0.0.
      returnUrl: 'http://127.0.0.1:9000/billing/return',
    });
    expect(loadConfig({}, linux({ SVC_STRIPE_RETURN_URL: 'https://svc.example.com/billing' })).stripe.returnUrl).toBe('https://svc.example.com/billing');
  });

  it('refuses one secret without the other, wrong key kinds and non-http URLs', () => {
    expect(() => loadConfig({}, linux({ SVC_STRIPE_SECRET_KEY: 'sk_test_1' }))).toThrow(/both SVC_STRIPE_SECRET_KEY and SVC_STRIPE_WEBHOOK_SECRET/);
    expect(() => loadConfig({}, linux({ SVC_STRIPE_WEBHOOK_SECRET: 'whsec_1' }))).toThrow(/both/);
    expect(() => loadConfig({}, linux({ SVC_STRIPE_SECRET_KEY: 'pk_test_1', SVC_STRIPE_WEBHOOK_SECRET: 'whsec_1' }))).toThrow(/sk_/);
    expect(() => loadConfig({}, linux({ SVC_STRIPE_SECRET_KEY: 'sk_test_1', SVC_STRIPE_WEBHOOK_SECRET: 'sk_test_2' }))).toThrow(/whsec_/);
    expect(() => loadConfig({}, linux({ SVC_STRIPE_RETURN_URL: 'ftp://x' }))).toThrow(/SVC_STRIPE_RETURN_URL/);
    expect(() => loadConfig({}, linux({ SVC_STRIPE_API_URL: 'not a url' }))).toThrow(/SVC_STRIPE_API_URL/);
  });
});
