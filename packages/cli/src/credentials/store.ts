import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../client/run.js';
import type { CommandIo } from '../terminal.js';
import { writeFileAtomic } from '../write-atomic.js';
import { configDir, ensureConfigDir } from './profiles.js';

// Where `svc login` and `svc keys create --save` keep secrets: the OS keychain (macOS Keychain, Windows Credential
// Manager, the Secret Service on Linux) through @napi-rs/keyring, or, when no keychain answers (a headless box, a
// container), a 0600 JSON file in the config dir. The fallback is never silent: every write says where it went.

export type CredentialKind = 'session' | 'api-key';
export const CREDENTIAL_KINDS: readonly CredentialKind[] = ['session', 'api-key'];
/** What the store keeps: svc's own credentials, and OAuth tokens for a remote MCP endpoint (keyed by its URL; oauth/). */
export type SecretKind = CredentialKind | 'oauth';

/** The keychain's service name; each secret is an account `<server>:<kind>` under it. */
export const KEYCHAIN_SERVICE = 'svc';

export interface CredentialStore {
  readonly kind: 'keychain' | 'file';
  /** Where the secrets are, and for the file store why the keychain is not used (for `svc auth status`). */
  readonly description: string;
  get(server: string, kind: SecretKind): Promise<string | undefined>;
  set(server: string, kind: SecretKind, secret: string): Promise<void>;
  /** True when there was something to delete. */
  delete(server: string, kind: SecretKind): Promise<boolean>;
}

/** The keychain calls the store needs; the real one is @napi-rs/keyring, a test may pass one that always fails. */
export interface KeychainBackend {
  get(account: string): Promise<string | undefined>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<boolean>;
}

/** A locked keychain may show an unlock prompt; a Secret Service that hangs must not hang `svc`. */
const KEYCHAIN_TIMEOUT_MS = 10_000;

/** The native module loads only when a command needs the store, so `svc --help` and local scans never pay for it. */
async function entry(account: string) {
  const { AsyncEntry } = await import('@napi-rs/keyring');
  return new AsyncEntry(KEYCHAIN_SERVICE, account);
}

export const napiKeychain: KeychainBackend = {
  async get(account) {
    const value = await (await entry(account)).getPassword(AbortSignal.timeout(KEYCHAIN_TIMEOUT_MS));
    return value ?? undefined;
  },
  async set(account, secret) {
    await (await entry(account)).setPassword(secret, AbortSignal.timeout(KEYCHAIN_TIMEOUT_MS));
  },
  async delete(account) {
    try {
      return await (await entry(account)).deleteCredential(AbortSignal.timeout(KEYCHAIN_TIMEOUT_MS));
    } catch (error) {
      // "No matching entry" is an error in keyring-rs; for a delete it just means nothing was there.
      if (/no matching entry/i.test(firstLine(error))) return false;
      throw error;
    }
  },
};

function account(server: string, kind: SecretKind): string {
  return `${server}:${kind}`;
}

/** keyring-rs errors carry a Rust backtrace after the first line; users need only the reason. */
function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.trim();
}

export class KeychainCredentialStore implements CredentialStore {
  readonly kind = 'keychain';
  readonly description: string;

  constructor(private readonly backend: KeychainBackend = napiKeychain) {
    this.description = `the OS keychain (service "${KEYCHAIN_SERVICE}", accounts "<server>:session", "<server>:api-key" and "<MCP endpoint URL>:oauth")`;
  }

  async get(server: string, kind: SecretKind): Promise<string | undefined> {
    return this.call(() => this.backend.get(account(server, kind)));
  }

  async set(server: string, kind: SecretKind, secret: string): Promise<void> {
    await this.call(() => this.backend.set(account(server, kind), secret));
  }

  async delete(server: string, kind: SecretKind): Promise<boolean> {
    return this.call(() => this.backend.delete(account(server, kind)));
  }

  private async call<T>(action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      throw new CliError(`the OS keychain failed: ${firstLine(error)}`);
    }
  }
}

type CredentialFile = { version: 1; servers: Record<string, Partial<Record<SecretKind, string>>> };

export class FileCredentialStore implements CredentialStore {
  readonly kind = 'file';
  readonly description: string;
  readonly path: string;

  /** `onWrite` is told after every write (the fallback says it is used); `reason` says why there is no keychain. */
  constructor(
    private readonly env: NodeJS.ProcessEnv,
    readonly reason: string,
    private readonly onWrite: (store: FileCredentialStore) => void = () => {},
  ) {
    this.path = join(configDir(env), 'credentials.json');
    this.description = `the file ${this.path} (mode 0600), because ${reason}`;
  }

  async get(server: string, kind: SecretKind): Promise<string | undefined> {
    return (await this.read()).servers[server]?.[kind];
  }

  async set(server: string, kind: SecretKind, secret: string): Promise<void> {
    const file = await this.read();
    file.servers[server] = { ...file.servers[server], [kind]: secret };
    await this.write(file);
    this.onWrite(this);
  }

  async delete(server: string, kind: SecretKind): Promise<boolean> {
    const file = await this.read();
    const entry = file.servers[server];
    if (entry?.[kind] === undefined) return false;
    delete entry[kind];
    if (Object.keys(entry).length === 0) delete file.servers[server];
    await this.write(file);
    return true;
  }

  private async read(): Promise<CredentialFile> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, servers: {} };
      throw error;
    }
    try {
      const parsed = JSON.parse(text) as Partial<CredentialFile>;
      return { version: 1, servers: typeof parsed.servers === 'object' && parsed.servers !== null ? parsed.servers : {} };
    } catch {
      throw new CliError(`${this.path} is not valid JSON; delete it and sign in again`);
    }
  }

  private async write(file: CredentialFile): Promise<void> {
    await ensureConfigDir(this.env);
    await writeFileAtomic(this.path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  }
}

/**
 * Whether a keychain answers: undefined when it does, else the reason. It writes and deletes a probe entry, since
 * on Linux without a Secret Service a read answers "nothing stored" and only a write fails.
 *
 * On Linux the library falls back to the kernel keyring (keyutils) when there is no Secret Service; that keyring
 * lives only as long as the login session (and works in some processes of a container but not in others), so a
 * stored session would vanish. The keychain is therefore used there only with a D-Bus session bus to find a Secret
 * Service on.
 */
export async function probeKeychain(backend: KeychainBackend = napiKeychain, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  if (backend === napiKeychain && process.platform === 'linux' && !hasSessionBus(env)) {
    return 'no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is unset, so there is no Secret Service';
  }
  const probe = `${KEYCHAIN_SERVICE}-probe:${process.pid}`;
  try {
    // macOS and Windows always have their keychain, and a read there fails as a write would.
    if (process.platform !== 'linux' && backend === napiKeychain) {
      await backend.get(probe);
      return undefined;
    }
    await backend.set(probe, 'probe');
    await backend.delete(probe);
    return undefined;
  } catch (error) {
    return firstLine(error);
  }
}

/** libdbus finds the session bus through DBUS_SESSION_BUS_ADDRESS, or the systemd user bus at $XDG_RUNTIME_DIR/bus. */
function hasSessionBus(env: NodeJS.ProcessEnv): boolean {
  if (env.DBUS_SESSION_BUS_ADDRESS) return true;
  return env.XDG_RUNTIME_DIR !== undefined && env.XDG_RUNTIME_DIR !== '' && existsSync(join(env.XDG_RUNTIME_DIR, 'bus'));
}

export interface OpenStoreOptions {
  /** The keychain to try; tests pass a failing one to force the fallback without touching D-Bus. */
  keychain?: KeychainBackend;
}

/**
 * SVC_CREDENTIAL_STORE picks the store: `keychain` (fail when none answers), `file` (never try the keychain), or
 * unset: the keychain when one answers, else the file, and the file store then says so on stderr at every write.
 */
export async function openCredentialStore(io: Pick<CommandIo, 'env' | 'stderr'>, options: OpenStoreOptions = {}): Promise<CredentialStore> {
  const wanted = io.env.SVC_CREDENTIAL_STORE ?? '';
  if (wanted !== '' && wanted !== 'keychain' && wanted !== 'file') {
    throw new CliError(`SVC_CREDENTIAL_STORE must be keychain or file, not ${JSON.stringify(wanted)}`);
  }
  if (wanted === 'file') return new FileCredentialStore(io.env, 'SVC_CREDENTIAL_STORE=file');
  const backend = options.keychain ?? napiKeychain;
  const failure = await probeKeychain(backend, io.env);
  if (failure === undefined) return new KeychainCredentialStore(backend);
  if (wanted === 'keychain') {
    throw new CliError(`no OS keychain answered (${failure}); SVC_CREDENTIAL_STORE=keychain asks for one${keychainHint()}`);
  }
  return new FileCredentialStore(io.env, `no OS keychain answered (${failure})`, (store) => {
    io.stderr.write(`svc: no OS keychain answered, so the credential is stored in ${store.path} (readable only by you)${keychainHint()}\n`);
  });
}

function keychainHint(): string {
  return process.platform === 'linux' ? '; on Linux a Secret Service (gnome-keyring, KeePassXC) in the D-Bus session provides one' : '';
}
