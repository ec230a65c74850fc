import { spawn } from 'node:child_process';

// Opening the user's browser at the authorization URL, with the opener each platform ships (no dependency for one
// spawn). The URL is one argument, never parsed by a shell. Failing to open is not fatal: the URL is printed too.

/** Opens `url` in the default browser; the promise settles once the opener started (or failed to). */
export type OpenBrowser = (url: string) => Promise<void>;

export const systemBrowser: OpenBrowser = (url) => {
  const [command, ...args] =
    process.platform === 'darwin'
      ? ['open', url]
      : process.platform === 'win32'
        ? // `start` is a cmd built-in that would re-parse the `&`s of the query; this opener takes the URL as it is.
          ['rundll32', 'url.dll,FileProtocolHandler', url]
        : ['xdg-open', url];
  return new Promise((resolve, reject) => {
    const child = spawn(command!, args, { stdio: 'ignore', detached: true });
    child.once('error', reject);
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
};
