// Request headers for remote endpoints (a bearer token, an API key header) and keeping them out of everything svc
// prints: errors, reports and logs see `***` where a value was.

/** `Name: value` as curl and gh take it; the name must be a valid HTTP header name. */
export function parseHeader(text: string): [string, string] {
  const colon = text.indexOf(':');
  const name = colon > 0 ? text.slice(0, colon).trim() : '';
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new Error(`not a header: expected "Name: value", got "${redactHeaderText(text)}"`);
  return [name, text.slice(colon + 1).trim()];
}

function redactHeaderText(text: string): string {
  const colon = text.indexOf(':');
  return colon > 0 ? `${text.slice(0, colon)}: ***` : '***';
}

const ENV_REFERENCE = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Expands the `${env:VAR}` (VS Code, Cursor) and `${VAR}` (Claude Code) references client configs put in header values.
 * Without `env` (the daemon) nothing is expanded, and a reference is an error: a service must not hand its own
 * environment to a host a caller named.
 */
export function expandHeaders(headers: Record<string, string>, env: Record<string, string | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = value.replace(ENV_REFERENCE, (_match, variable: string) => {
      const resolved = env?.[variable];
      if (resolved === undefined || resolved === '') {
        throw new Error(`header ${name} refers to the environment variable ${variable}, which is ${env ? 'not set' : 'not available here'}`);
      }
      return resolved;
    });
  }
  return out;
}

/** Whether the headers carry a credential (so a server that answered was not necessarily open to everyone). */
export function hasCredentials(headers: Record<string, string>): boolean {
  return Object.keys(headers).some((name) => /^(authorization|cookie|proxy-authorization)$|api[-_]?key|token|secret|auth/i.test(name));
}

/** A function that replaces every header value (and a bearer token on its own) in a text with `***`. */
export function redactor(headers: Record<string, string>): (text: string) => string {
  const secrets = Object.values(headers)
    .flatMap((value) => [value, value.replace(/^(bearer|basic|token)\s+/i, '')])
    .filter((value) => value.length >= 4)
    .sort((a, b) => b.length - a.length);
  return (text) => secrets.reduce((out, secret) => out.split(secret).join('***'), text);
}

const SECRET_PARAMETER = /token|key|secret|password|passwd|auth|session|sid|signature|sig|code/i;

/** Whether a URL carries a credential: a user name or password, or a query parameter named like a token or session. */
export function urlCarriesCredentials(url: URL): boolean {
  return url.username !== '' || url.password !== '' || [...url.searchParams.keys()].some((name) => SECRET_PARAMETER.test(name));
}

/**
 * The endpoint as reports show it: no user name or password, and the values of query parameters that look like
 * credentials or sessions replaced with `***`.
 */
export function displayUrl(url: URL): string {
  const shown = new URL(url.href);
  shown.username = '';
  shown.password = '';
  for (const name of [...new Set(shown.searchParams.keys())]) {
    if (SECRET_PARAMETER.test(name)) shown.searchParams.set(name, '***');
  }
  return shown.href;
}
