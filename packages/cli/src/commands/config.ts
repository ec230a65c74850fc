import { configDir, DEFAULT_SERVER, normalizeServer, readConfig, rememberServer } from '../credentials/profiles.js';
import type { CommandIo } from '../terminal.js';
import { printJson } from '../ui/output.js';

// Server profiles: which servers the CLI knows and which one commands use without --server or SVC_SERVER.

export async function setServerCommand(io: CommandIo, url: string, options: { json?: boolean }): Promise<number> {
  const server = normalizeServer(url);
  const config = await rememberServer(io.env, server, true);
  if (options.json) printJson(io, { default_server: server, servers: config.servers });
  else io.stdout.write(`default server: ${server}\n`);
  return 0;
}

export async function showConfigCommand(io: CommandIo, options: { json?: boolean }): Promise<number> {
  const config = await readConfig(io.env);
  const data = { config_dir: configDir(io.env), default_server: config.default_server ?? null, servers: config.servers };
  if (options.json) {
    printJson(io, data);
    return 0;
  }
  const lines = [
    `config dir:     ${data.config_dir}`,
    `default server: ${data.default_server ?? `none (${DEFAULT_SERVER} is used)`}`,
    ...(config.servers.length === 0 ? [] : ['servers:', ...config.servers.map((server) => `  ${server}${server === config.default_server ? ' (default)' : ''}`)]),
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
