import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLEAN_ENV } from './test/process.js';

// These run the built bin (bin/svcd.js → dist/main.js), as an operator would; `npm run build` comes first.
const bin = fileURLToPath(new URL('../bin/svcd.js', import.meta.url));
const dist = fileURLToPath(new URL('../dist/main.js', import.meta.url));


let dataDir: string;
let child: ChildProcess | undefined;

beforeEach(async () => {
  if (!existsSync(dist)) throw new Error(`${dist} is missing: run \`npm run build\` before these tests`);
  dataDir = await mkdtemp(path.join(tmpdir(), 'svcd-main-'));
});
afterEach(async () => {
  if (child !== undefined && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [bin, ...args], { env: { ...CLEAN_ENV, ...env }, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on('error', reject);
    proc.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('svcd', () => {
  it('listens on the port the OS picked, serves, and exits 0 on SIGTERM', async () => {
    const proc = spawn(process.execPath, [bin, '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], { env: CLEAN_ENV, stdio: 'pipe' });
    child = proc;
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    let errors = '';
    proc.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      proc.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /svcd listening on (http:\/\/127\.0\.0\.1:(\d+)) \(data: (.+)\)\n/.exec(out);
        if (match?.[1] !== undefined) {
          expect(match[2]).not.toBe('0');
          expect(match[3]).toBe(dataDir);
          resolve(match[1]);
        }
      });
      proc.on('exit', (code) => reject(new Error(`svcd exited with ${code} before listening: ${errors}`)));
    });

    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { data: { status: string } }).data.status).toBe('ok');
    // a sign-in code lands in the outbox, which `svcd admin outbox` prints beside the running daemon
    const login = await fetch(`${url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"op@example.com"}' });
    expect(login.status).toBe(200);
    const outbox = await run(['admin', 'outbox', '--data-dir', dataDir]);
    expect(outbox.code, outbox.stderr).toBe(0);
    expect(outbox.stdout).toMatch(/to op@example\.com\nSubject: Your svc sign-in code: \d{6}/);

    proc.kill('SIGTERM');
    expect(await exited, errors).toBe(0);
  });

  it('refuses bad configuration with a clear message and exit code 2', async () => {
    const badProxy = await run(['--data-dir', dataDir], { SVC_TRUSTED_PROXIES: '10.0.0.0/8,nonsense' });
    expect(badProxy.code).toBe(2);
    expect(badProxy.stderr).toMatch(/^svcd: SVC_TRUSTED_PROXIES: .*nonsense/);
    const badPort = await run(['--port', '99999', '--data-dir', dataDir]);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toBe('svcd: --port must be a port number from 0 to 65535, got "99999"\n');
    const usage = await run(['serve-please', '--data-dir', dataDir]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/too many arguments/);
    expect((await run(['admin', 'token'])).code).toBe(2);
  });

  it('runs the admin commands against the data dir, and says on stderr which one', async () => {
    const created = await run(['admin', 'create-user', 'ada@example.com', '--tier', 'dev', '--data-dir', dataDir]);
    expect(created.stdout).toMatch(/^created ada@example\.com \(dev/);
    expect(created.stderr).toBe(`svcd admin: data dir ${dataDir}\n`);
    expect((await run(['admin', 'outbox'], { SVC_DATA_DIR: dataDir })).stderr).toBe(`svcd admin: data dir ${dataDir}\n`);
    expect((await run(['admin', 'set-tier', 'ada@example.com', 'team', '--data-dir', dataDir])).stdout).toBe('ada@example.com is now on the team tier\n');
    const token = await run(['admin', 'token', 'ada@example.com', '--data-dir', dataDir]);
    expect(token.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const missing = await run(['admin', 'token', 'nobody@example.com', '--data-dir', dataDir]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no user with the email nobody@example\.com/);
  });
});
