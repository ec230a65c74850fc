// Git repositories: a shallow clone with the system git, so the user's own credential helpers, SSH keys and
// url rewrites apply (private repositories work), while nothing from the repository can run.

import path from 'node:path';
import { DEFAULT_ARCHIVE_LIMITS } from '../archive.js';
import type { ScanTarget, Workspace } from '../model.js';
import { TargetError } from './errors.js';
import type { GitNetworkPolicy, SourceOptions } from './options.js';
import { GroupRunError, runInProcessGroup } from './process-groups.js';
import { removeTempDir, withTempDir } from './temp.js';

const CLONE_TIMEOUT_MS = 5 * 60_000;

/**
 * A transfer slower than this many bytes per second for this many seconds is abandoned by git itself (a server that
 * trickles or stalls), long before the clone's overall time limit; the user's own GIT_HTTP_LOW_SPEED_* win.
 */
const LOW_SPEED_LIMIT_BYTES = '1000';
const LOW_SPEED_TIME_SECONDS = '60';
/** ssh's own connect and keep-alive timeouts, for daemons that allow ssh: an unanswered connect fails in 30 s. */
const SSH_COMMAND = 'ssh -o BatchMode=yes -o ConnectTimeout=30 -o ServerAliveInterval=15 -o ServerAliveCountMax=4';

class GitFailure extends Error {
  constructor(readonly stderr: string, message: string) {
    super(message);
  }
}

function gitEnv(policy: GitNetworkPolicy | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // Fail instead of waiting for a password nobody will type; skip LFS downloads (we read source, not assets).
    GIT_TERMINAL_PROMPT: '0',
    GIT_LFS_SKIP_SMUDGE: '1',
    GCM_INTERACTIVE: 'never',
    GIT_HTTP_LOW_SPEED_LIMIT: process.env.GIT_HTTP_LOW_SPEED_LIMIT ?? LOW_SPEED_LIMIT_BYTES,
    GIT_HTTP_LOW_SPEED_TIME: process.env.GIT_HTTP_LOW_SPEED_TIME ?? LOW_SPEED_TIME_SECONDS,
  };
  if (policy) {
    env.GIT_ALLOW_PROTOCOL = policy.protocols.join(':');
    // A service allowing ssh gets ssh's timeouts unless its operator chose an ssh command; the CLI keeps the user's
    // core.sshCommand, which this variable would override.
    if (policy.protocols.includes('ssh') && env.GIT_SSH_COMMAND === undefined && env.GIT_SSH === undefined) env.GIT_SSH_COMMAND = SSH_COMMAND;
  }
  return env;
}

/** git in its own process group: a timeout or an abort kills git and its helpers (git-remote-http, ssh) together. */
async function runGit(args: string[], options: { cwd?: string; signal?: AbortSignal; git?: GitNetworkPolicy }): Promise<{ stdout: string; stderr: string }> {
  try {
    return await runInProcessGroup('git', args, {
      cwd: options.cwd,
      signal: options.signal,
      timeoutMs: CLONE_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
      env: gitEnv(options.git),
    });
  } catch (error) {
    if (error instanceof GroupRunError) throw new GitFailure(error.timedOut ? error.message : error.stderr, error.message);
    throw error;
  }
}

/**
 * Options that keep a clone inert: no hooks (a user's global core.hooksPath included), no `ext::` transport (runs
 * commands), no submodule recursion. Local `file://` URLs need an explicit allow.
 */
function safetyConfig(url: string, policy?: GitNetworkPolicy): string[] {
  const config = ['-c', 'core.hooksPath=/dev/null', '-c', 'protocol.ext.allow=never', '-c', 'submodule.recurse=false'];
  if (url.startsWith('file:') || path.isAbsolute(url)) config.push('-c', 'protocol.file.allow=user');
  if (policy?.pin) {
    // curl's --resolve: the host resolves to the checked address only, whatever DNS says during the clone. Redirects
    // to another host would resolve anew, so none is followed.
    const { host, port, address } = policy.pin;
    const literal = address.includes(':') ? `[${address}]` : address;
    config.push('-c', `http.curloptResolve=${host}:${port}:${literal}`, '-c', 'http.followRedirects=false');
  }
  return config;
}

/** git's own first error line ("fatal: repository … not found"), which says more than any paraphrase. */
export function firstGitError(stderr: string): string {
  const lines = stderr.split('\n').map((line) => line.trim()).filter(Boolean);
  return lines.find((line) => /^(fatal|error):/.test(line)) ?? lines[0] ?? 'git failed';
}

const FULL_SHA = /^[0-9a-f]{40}$/i;

export async function fetchGit(
  target: Extract<ScanTarget, { kind: 'git' }>,
  options: SourceOptions = {},
): Promise<Workspace> {
  const config = safetyConfig(target.url, options.git);
  return withTempDir(options.tempRoot, async (dir) => {
    const root = path.join(dir, 'repo');
    try {
      if (target.ref && FULL_SHA.test(target.ref)) {
        // `clone --branch` takes names only; a commit is fetched by id into an empty repository.
        await runGit([...config, 'init', '--quiet', root], options);
        await runGit([...config, 'remote', 'add', 'origin', '--', target.url], { ...options, cwd: root });
        await runGit([...config, 'fetch', '--depth', '1', '--no-tags', 'origin', target.ref], {
          ...options,
          cwd: root,
        });
        await checkTreeSize(target.input, root, 'FETCH_HEAD', options);
        await runGit([...config, 'checkout', '--quiet', '--detach', 'FETCH_HEAD'], { ...options, cwd: root });
      } else {
        const branch = target.ref ? ['--branch', target.ref] : [];
        // No checkout yet: the tree's sizes are read from the objects first, so a small repository holding one huge
        // (highly compressible) file is refused before anything is inflated onto the disk.
        await runGit(
          [...config, 'clone', '--depth', '1', '--no-tags', '--single-branch', '--no-checkout', '--quiet', ...branch, '--', target.url, root],
          options,
        );
        await checkTreeSize(target.input, root, 'HEAD', options);
        await runGit([...config, 'checkout', '--quiet', '--force', 'HEAD'], { ...options, cwd: root });
      }
    } catch (error) {
      if (error instanceof GitFailure) {
        throw new TargetError(target.input, firstGitError(error.stderr || error.message), { cause: error });
      }
      throw error;
    }
    const commit = (await runGit(['rev-parse', 'HEAD'], { ...options, cwd: root })).stdout.trim();
    return {
      target,
      root,
      name: repositoryName(target.url),
      version: commit.slice(0, 12),
      metadata: { registry: 'git', commit },
      dispose: () => removeTempDir(dir),
    };
  });
}

/**
 * The commit's tree against the archive limits (entries, total and per-file bytes, depth), from `git ls-tree -l`, which
 * reads sizes from the objects without writing any file. Over a limit is a TargetError naming it.
 */
async function checkTreeSize(input: string, root: string, rev: string, options: SourceOptions): Promise<void> {
  const limits = { ...DEFAULT_ARCHIVE_LIMITS, ...options.limits };
  const { stdout } = await runGit(['ls-tree', '-r', '-t', '-l', '-z', rev], { ...options, cwd: root });
  let entries = 0;
  let files = 0;
  let bytes = 0;
  for (const record of stdout.split('\0')) {
    if (!record) continue;
    const tab = record.indexOf('\t');
    const [, type, , size] = record.slice(0, tab).split(/\s+/);
    const filePath = record.slice(tab + 1);
    entries++;
    const refuse = (reason: string) => {
      throw new TargetError(input, `repository is over the scan's limits: ${reason}`);
    };
    if (entries > limits.maxEntries) refuse(`more than ${limits.maxEntries} entries`);
    if (filePath.split('/').length > limits.maxDepth) refuse(`${filePath} is nested more than ${limits.maxDepth} levels deep`);
    if (type !== 'blob') continue;
    files++;
    const fileBytes = Number(size);
    if (files > limits.maxFiles) refuse(`more than ${limits.maxFiles} files`);
    if (fileBytes > limits.maxFileBytes) refuse(`${filePath} is ${fileBytes} bytes, over the ${limits.maxFileBytes}-byte file limit`);
    bytes += Number.isFinite(fileBytes) ? fileBytes : 0;
    if (bytes > limits.maxBytes) refuse(`the checkout would exceed ${limits.maxBytes} bytes`);
  }
}

/** `owner/repo` for hosted URLs, the folder name for local `file:` repositories; without `.git`. */
export function repositoryName(url: string): string {
  const withoutSuffix = url.replace(/\/+$/, '').replace(/\.git$/, '');
  const scpLike = /^[^/@]+@[^:/]+:(.+)$/.exec(withoutSuffix);
  const pathPart = scpLike?.[1] ?? (URL.canParse(withoutSuffix) ? new URL(withoutSuffix).pathname : withoutSuffix);
  const segments = pathPart.split('/').filter(Boolean);
  const kept = withoutSuffix.startsWith('file:') ? 1 : 2;
  return segments.slice(-kept).join('/') || url;
}
