import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The built `svcd` as an operator runs it, for end-to-end tests (daemon and CLI): `npm run build` comes first.

export const SVCD_BIN = fileURLToPath(new URL('../../bin/svcd.js', import.meta.url));
const DIST_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** This process's environment without the operator's own SVC_* settings, which must not leak into test daemons. */
export const CLEAN_ENV: Record<string, string | undefined> = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SVC_')));

export interface SvcdProcess {
  url: string;
  child: ChildProcess;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts `svcd --port 0` with `env` and resolves once it prints where it listens. `bin` is the repository's build
 * unless a test gives an installed copy (a `bin/svcd` shim, run as the shell would).
 */
export async function startSvcdProcess(env: Record<string, string | undefined>, bin?: string): Promise<SvcdProcess> {
  if (bin === undefined && !existsSync(DIST_MAIN)) throw new Error(`${DIST_MAIN} is missing: run \`npm run build\` before these tests`);
  const child = bin === undefined ? spawn(process.execPath, [SVCD_BIN, '--port', '0'], { env, stdio: 'pipe' }) : spawn(bin, ['--port', '0'], { env, stdio: 'pipe' });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /svcd listening on (http:\/\/\S+) /.exec(out);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`svcd exited with ${code}: ${errors}`)));
  });
  return {
    url,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
