// Test support (imported by *.test.ts only, core's and the daemon's): a git smart-HTTP server on 127.0.0.1 that
// answers the first request's headers and then sends nothing more, so a clone hangs mid-transfer the way a slow or
// hostile server makes it hang; and a look at /proc for the processes a clone started (git and git-remote-http).

import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StallingGitServer {
  /** Base URL, e.g. http://127.0.0.1:PORT; any path is a "repository". */
  url: string;
  /** Resolves once git's first request has arrived (git and its helper are running by then). */
  requested: Promise<void>;
  close(): Promise<void>;
}

export async function startStallingGitServer(): Promise<StallingGitServer> {
  let arrived!: () => void;
  const requested = new Promise<void>((resolve) => (arrived = resolve));
  const open = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    open.add(response);
    response.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement', 'cache-control': 'no-cache' });
    // The service announcement and then silence: git waits for the refs that never come.
    response.write('001e# service=git-upload-pack\n0000');
    arrived();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requested,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of open) response.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Pids of the processes whose command line contains `marker` (a clone's URL names its git and git-remote-http). */
export function processesMentioning(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** Whether a process still has a /proc entry (running, or a zombie nobody reaped). */
export function processExists(pid: number): boolean {
  try {
    readFileSync(`/proc/${pid}/stat`);
    return true;
  } catch {
    return false;
  }
}

/** Polls until `check` holds (or the safety-net limit passes, after which the caller's assertion reports it). */
export async function waitFor(check: () => boolean, limitMs = 15_000): Promise<void> {
  for (let waited = 0; !check() && waited < limitMs; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Waits until git and git-remote-http of the clone of `url` are both running; returns their pids. */
export async function clonePids(url: string): Promise<number[]> {
  let pids: number[] = [];
  await waitFor(() => (pids = processesMentioning(url)).length >= 2);
  return pids;
}
