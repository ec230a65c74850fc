export type LogFields = Record<string, unknown>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** One JSON object per line on stderr, so stdout stays for what commands print and log shippers can parse. */
export function jsonLogger(write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const log = (level: string, message: string, fields: LogFields = {}) =>
    write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`);
  return {
    info: (message, fields) => log('info', message, fields),
    error: (message, fields) => log('error', message, fields),
  };
}

export const silentLogger: Logger = { info() {}, error() {} };
