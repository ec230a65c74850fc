// API-key scopes and their umbrellas, exactly as spec 5.2 lists them. A key stores the scopes it was given
// (umbrellas included, so a key list shows what the user chose); expansion happens at check time.

export const BASE_SCOPES = ['scan:submit', 'scan:list', 'scan:get', 'registry:read', 'watchlist:read'] as const;
export type BaseScope = (typeof BASE_SCOPES)[number];

const SCAN_READ = ['scan:list', 'scan:get', 'registry:read', 'watchlist:read'] as const satisfies readonly BaseScope[];

export const UMBRELLA_SCOPES = {
  'scan:read': SCAN_READ,
  'scan:write': ['scan:submit', ...SCAN_READ],
} as const satisfies Record<string, readonly BaseScope[]>;
export type UmbrellaScope = keyof typeof UMBRELLA_SCOPES;

export type Scope = BaseScope | UmbrellaScope;
export const SCOPES: readonly Scope[] = [...BASE_SCOPES, ...(Object.keys(UMBRELLA_SCOPES) as UmbrellaScope[])];

/** The dashboard default for a new key (spec 5.2). */
export const DEFAULT_KEY_SCOPES = ['scan:submit', 'scan:list', 'scan:get'] as const satisfies readonly Scope[];

/**
 * The scope each API-key route requires (spec 5.2). watchlist:read guards routes that do not exist yet
 * (spec 9.3); it is grantable now so keys minted today keep working when they arrive.
 */
export const ROUTE_SCOPES = {
  'POST /api/v1/scan': 'scan:submit',
  'GET /api/v1/scans': 'scan:list',
  'GET /api/v1/scan/{id}': 'scan:get',
  'GET /api/v1/registry/*': 'registry:read',
  'GET /api/v1/watchlist/*': 'watchlist:read',
} as const satisfies Record<string, BaseScope>;

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

function isUmbrella(scope: Scope): scope is UmbrellaScope {
  return Object.hasOwn(UMBRELLA_SCOPES, scope);
}

export function expandScopes(scopes: Iterable<Scope>): Set<BaseScope> {
  const expanded = new Set<BaseScope>();
  for (const scope of scopes) {
    if (isUmbrella(scope)) for (const base of UMBRELLA_SCOPES[scope]) expanded.add(base);
    else expanded.add(scope);
  }
  return expanded;
}

/**
 * Whether granted scopes allow what `required` allows. Granted scopes come from storage as plain strings;
 * anything unknown among them grants nothing rather than failing the request.
 */
export function hasScope(granted: Iterable<string>, required: Scope): boolean {
  const held = expandScopes([...granted].filter(isScope));
  return [...expandScopes([required])].every((scope) => held.has(scope));
}

export type ParseScopesResult = { ok: true; scopes: Scope[] } | { ok: false; invalid: string[]; message: string };

/**
 * Scopes from a request body. Exact, case-sensitive names only (what is stored is what the docs list);
 * duplicates are dropped; at least one scope is required (spec 2.8: "one or more").
 * `undefined` means "not given" and yields the dashboard default.
 */
export function parseScopes(input: unknown): ParseScopesResult {
  if (input === undefined) return { ok: true, scopes: [...DEFAULT_KEY_SCOPES] };
  if (!Array.isArray(input)) return { ok: false, invalid: [], message: 'scopes must be an array of scope names.' };
  if (input.length === 0) return { ok: false, invalid: [], message: 'scopes must name at least one scope.' };
  const invalid = input.filter((entry) => !isScope(entry)).map(describeEntry);
  if (invalid.length > 0) {
    return { ok: false, invalid, message: `Unknown scope ${invalid.join(', ')}; allowed: ${SCOPES.join(', ')}.` };
  }
  return { ok: true, scopes: [...new Set(input as Scope[])] };
}

function describeEntry(entry: unknown): string {
  return typeof entry === 'string' ? entry : (JSON.stringify(entry) ?? String(entry));
}
