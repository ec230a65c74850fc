import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError, runCommand } from '../client/run.js';
import { captureIo } from '../test/io.js';
import { FileCredentialStore, KeychainCredentialStore, napiKeychain, openCredentialStore, probeKeychain } from './store.js';
import type { KeychainBackend } from './store.js';

// The keychain path runs against a real Secret Service: .ci/run starts gnome-keyring in a D-Bus session and sets
// SVC_EXPECT_KEYCHAIN=1, so there a missing keychain fails the suite instead of skipping it.
const keychainProblem = await probeKeychain(napiKeychain, process.env);
const expectKeychain = process.env.SVC_EXPECT_KEYCHAIN === '1';

const noKeychain: KeychainBackend = {
  get: () => Promise.reject(new Error("Couldn't access platform storage: AccessDenied\n\nStack backtrace:\n   0: <unknown>")),
  set: () => Promise.reject(new Error("Couldn't access platform storage: AccessDenied\n\nStack backtrace:\n   0: <unknown>")),
  delete: () => Promise.reject(new Error('unreachable')),
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the file fallback', () => {
  it('is chosen when no keychain answers, writes 0600 in a 0700 dir, and says so on stderr at every write', async () => {
    const io = captureIo({ SVC_CONFIG_DIR: join(dir, 'config') });
    const store = await openCredentialStore(io, { keychain: noKeychain });
    expect(store.kind).toBe('file');
    expect(store.description).toContain("no OS keychain answered (Couldn't access platform storage: AccessDenied)");
    expect(io.err()).toBe('');

    await store.set('http://127.0.0.1:7878', 'session', 'jwt-secret');
    const path = join(dir, 'config', 'credentials.json');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'config'))).mode & 0o777).toBe(0o700);
    expect(io.err()).toBe(
      `svc: no OS keychain answered, so the credential is stored in ${path} (readable only by you); on Linux a Secret Service (gnome-keyring, KeePassXC) in the D-Bus session provides one\n`,
    );
    // The Rust backtrace of the keyring error never reaches the user.
    expect(store.description).not.toContain('backtrace');

    await store.set('http://127.0.0.1:7878', 'api-key', 'svc_key');
    await store.set('https://svc.example.com', 'session', 'other');
    expect(io.err().split('\n').filter(Boolean)).toHaveLength(3);
    expect(await store.get('http://127.0.0.1:7878', 'session')).toBe('jwt-secret');
    expect(await store.get('http://127.0.0.1:7878', 'api-key')).toBe('svc_key');
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({
      version: 1,
      servers: { 'http://127.0.0.1:7878': { session: 'jwt-secret', 'api-key': 'svc_key' }, 'https://svc.example.com': { session: 'other' } },
    });

    expect(await store.delete('http://127.0.0.1:7878', 'session')).toBe(true);
    expect(await store.delete('http://127.0.0.1:7878', 'session')).toBe(false);
    expect(await store.get('http://127.0.0.1:7878', 'session')).toBeUndefined();
    // Still 0600 after a rewrite, and no temp file left behind.
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, 'config'))).toEqual(['credentials.json']);
  });

  it('is chosen with the real keyring library when there is no D-Bus session bus (Linux)', async () => {
    // Without a bus the library would fall back to the kernel keyring, which forgets at logout: svc uses the file.
    const env = { SVC_CONFIG_DIR: dir, HOME: dir };
    expect(await probeKeychain(napiKeychain, env)).toBe('no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is unset, so there is no Secret Service');
    const io = captureIo(env);
    const store = await openCredentialStore(io);
    expect(store.kind).toBe('file');
    await store.set('http://127.0.0.1:7878', 'session', 'jwt');
    expect((await stat(join(dir, 'credentials.json'))).mode & 0o777).toBe(0o600);
    expect(io.err()).toMatch(/^svc: no OS keychain answered, so the credential is stored in .*credentials\.json \(readable only by you\)/);
  });

  it('SVC_CREDENTIAL_STORE=file never asks the keychain; =keychain without one is one line and exit 2', async () => {
    let asked = 0;
    const counting: KeychainBackend = { ...noKeychain, set: () => ((asked += 1), noKeychain.set('x', 'y')) };
    const fileIo = captureIo({ SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: 'file' });
    const store = await openCredentialStore(fileIo, { keychain: counting });
    expect(store).toBeInstanceOf(FileCredentialStore);
    expect(store.description).toContain('because SVC_CREDENTIAL_STORE=file');
    expect(asked).toBe(0);

    const io = captureIo({ SVC_CONFIG_DIR: dir, SVC_CREDENTIAL_STORE: 'keychain' });
    await expect(openCredentialStore(io, { keychain: noKeychain })).rejects.toBeInstanceOf(CliError);
    const code = await runCommand(io, () => openCredentialStore(io, { keychain: noKeychain }).then(() => 0));
    expect(code).toBe(2);
    expect(io.err().split('\n').filter(Boolean)).toEqual([
      "svc: no OS keychain answered (Couldn't access platform storage: AccessDenied); SVC_CREDENTIAL_STORE=keychain asks for one; on Linux a Secret Service (gnome-keyring, KeePassXC) in the D-Bus session provides one",
    ]);
    await expect(openCredentialStore(captureIo({ SVC_CREDENTIAL_STORE: 'vault' }))).rejects.toThrow('SVC_CREDENTIAL_STORE must be keychain or file, not "vault"');
  });
});

describe.skipIf(keychainProblem !== undefined && !expectKeychain)('the OS keychain (a real Secret Service)', () => {
  it('answers here (CI runs a Secret Service and requires it)', () => {
    expect(keychainProblem).toBeUndefined();
  });

  it('is chosen when it answers, and stores, reads and deletes per server and kind', async () => {
    const io = captureIo({ SVC_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR });
    const store = await openCredentialStore(io);
    expect(store).toBeInstanceOf(KeychainCredentialStore);
    const server = `http://test-${randomUUID()}.invalid:7878`;
    try {
      expect(await store.get(server, 'session')).toBeUndefined();
      await store.set(server, 'session', 'session-jwt');
      await store.set(server, 'api-key', 'svc_key');
      expect(await store.get(server, 'session')).toBe('session-jwt');
      expect(await store.get(server, 'api-key')).toBe('svc_key');
      expect(await store.delete(server, 'session')).toBe(true);
      expect(await store.get(server, 'session')).toBeUndefined();
      expect(await store.delete(server, 'session')).toBe(false);
      // Nothing was written to disk and nothing said on stderr: the keychain is the normal case.
      expect(await readdir(dir)).toEqual([]);
      expect(io.err()).toBe('');
    } finally {
      await store.delete(server, 'session');
      await store.delete(server, 'api-key');
    }
  });
});
