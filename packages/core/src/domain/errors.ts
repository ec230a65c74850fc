// The one closed list of error codes shared by the daemon (which answers with them) and the CLI client
// (which parses them). Adding a code means adding its status and message here; the `satisfies` clauses
// make a missing entry a compile error.

export const ERROR_CODES = [
  // spec 7.2, statuses exactly as the spec gives them
  'EMAIL_MISMATCH',
  'ALREADY_IN_TEAM',
  'INVITE_ALREADY_PENDING',
  'CANNOT_REMOVE_OWNER',
  'OWNER_CANNOT_LEAVE',
  'NOT_A_MEMBER',
  'INVALID_FIELD',
  'RETRY',
  'SUBSCRIPTION_REQUIRED',
  'RATE_LIMITED',
  // DESIGN.md "Decisions that fill the spec's gaps"
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'INVITE_NOT_FOUND',
  'INVITE_EXPIRED',
  // what a real HTTP service answers besides the spec's business errors
  'KEY_LIMIT_REACHED',
  'CONFLICT',
  'METHOD_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'BILLING_NOT_CONFIGURED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export const ERROR_STATUS = {
  EMAIL_MISMATCH: 403,
  ALREADY_IN_TEAM: 409,
  INVITE_ALREADY_PENDING: 409,
  CANNOT_REMOVE_OWNER: 403,
  OWNER_CANNOT_LEAVE: 409,
  NOT_A_MEMBER: 404,
  INVALID_FIELD: 400,
  RETRY: 503,
  SUBSCRIPTION_REQUIRED: 402,
  RATE_LIMITED: 429,
  UNAUTHORIZED: 401,
  // Scope and IP-allowlist rejections share this code and its default message so the body does not
  // reveal which of the two failed (spec 5.3 rule 3).
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  INVITE_NOT_FOUND: 404,
  // 410 rather than 404: the token was real, so the recipient should ask for a new invite, not retype it.
  INVITE_EXPIRED: 410,
  // Spec 5.1 rule 6 (10 active keys) names no code; a dedicated one lets the CLI say "revoke a key first"
  // instead of guessing from a generic conflict. 409: the request is valid but clashes with account state.
  KEY_LIMIT_REACHED: 409,
  // State conflicts outside the team routes, e.g. cancelling a scan that already finished.
  CONFLICT: 409,
  // Hono answers these itself for unknown methods, oversized bodies and non-JSON bodies; naming them here
  // keeps every error body the envelope with a code the client knows.
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  // 501, not 503: a daemon started without SVC_STRIPE_* keys will never bill until an operator
  // reconfigures it, so clients must not retry (503 invites a retry, and RETRY already uses it).
  BILLING_NOT_CONFIGURED: 501,
  INTERNAL_ERROR: 500,
  // Temporary: the store is closing, the scan queue is full or a dependency is down; retrying later helps.
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<ErrorCode, number>;

// Default messages keep bodies identical wherever the same code is raised for different reasons.
export const DEFAULT_ERROR_MESSAGES = {
  EMAIL_MISMATCH: 'This invite was sent to a different email address.',
  ALREADY_IN_TEAM: 'That email address already belongs to a team member.',
  INVITE_ALREADY_PENDING: 'That email address already has an open invite.',
  CANNOT_REMOVE_OWNER: 'The team owner cannot be removed.',
  OWNER_CANNOT_LEAVE: 'The owner cannot leave the team; transfer ownership first.',
  NOT_A_MEMBER: 'That user is not a member of the team.',
  INVALID_FIELD: 'A field of the request is invalid.',
  RETRY: 'The team changed concurrently; reload it and repeat the request.',
  SUBSCRIPTION_REQUIRED: 'This feature needs a paid plan.',
  RATE_LIMITED: 'Rate limit reached.',
  UNAUTHORIZED: 'Missing or invalid credential.',
  FORBIDDEN: 'This credential is not allowed to make this request.',
  NOT_FOUND: 'Not found.',
  INVITE_NOT_FOUND: 'This invite does not exist or was revoked.',
  INVITE_EXPIRED: 'This invite has expired; ask for a new one.',
  KEY_LIMIT_REACHED: 'The account has the maximum number of active API keys; revoke one first.',
  CONFLICT: 'The request conflicts with the current state of the resource.',
  METHOD_NOT_ALLOWED: 'Method not allowed.',
  PAYLOAD_TOO_LARGE: 'The request body is too large.',
  UNSUPPORTED_MEDIA_TYPE: 'The request body must be JSON.',
  BILLING_NOT_CONFIGURED: 'Billing is not configured on this server.',
  INTERNAL_ERROR: 'Internal error.',
  SERVICE_UNAVAILABLE: 'The service is temporarily unavailable; try again later.',
} as const satisfies Record<ErrorCode, string>;

export type ErrorDetails = Record<string, unknown>;

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: ErrorDetails;
}

export interface ErrorEnvelope {
  success: false;
  error: ErrorBody;
}

export interface SuccessEnvelope<T> {
  success: true;
  data: T;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value);
}

export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message: string = DEFAULT_ERROR_MESSAGES[code], details?: ErrorDetails) {
    super(message);
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** A body validation failure naming the offending field (DESIGN.md: 400 INVALID_FIELD with details.field). */
export function invalidField(field: string, message: string, details: ErrorDetails = {}): ServiceError {
  return new ServiceError('INVALID_FIELD', message, { ...details, field });
}

export type RateLimitWindow =
  | 'minute'
  | 'hour'
  | 'day'
  | 'week'
  | 'month'
  | 'deep_week'
  | 'deep_month'
  | 'private_month'
  | 'private_deep_month'
  | 'edge'
  | 'user_requests';

/** The fields of spec 7.3; the transport adds the Retry-After header from retry_after_seconds. */
export interface RateLimitDetails {
  window: RateLimitWindow | (string & {});
  tier: string;
  current: number;
  limit: number;
  retry_after_seconds: number;
}

export function rateLimited(details: RateLimitDetails): ServiceError {
  const seconds = Math.max(0, Math.ceil(details.retry_after_seconds));
  const unit = seconds === 1 ? 'second' : 'seconds';
  return new ServiceError(
    'RATE_LIMITED',
    `Rate limit reached (${details.window}: ${details.current} of ${details.limit}); retry in ${seconds} ${unit}.`,
    { ...details, retry_after_seconds: seconds },
  );
}

/**
 * Any thrown value as a ServiceError. Unknown errors become INTERNAL_ERROR with the default message:
 * their text may carry paths or SQL and must not reach the caller.
 */
export function toServiceError(error: unknown): ServiceError {
  return error instanceof ServiceError ? error : new ServiceError('INTERNAL_ERROR');
}

export function errorEnvelope(error: ServiceError | ErrorBody): ErrorEnvelope {
  const body: ErrorBody = { code: error.code, message: error.message };
  if (error.details !== undefined) body.details = error.details;
  return { success: false, error: body };
}

export function successEnvelope<T>(data: T): SuccessEnvelope<T> {
  return { success: true, data };
}

/**
 * The error of a response body, for the CLI client. A code this build does not know (a newer server)
 * is kept as text so the client can still show it; undefined when the body is not the error envelope.
 */
export function parseErrorEnvelope(
  body: unknown,
): { code: ErrorCode | (string & {}); known: boolean; message: string; details?: ErrorDetails } | undefined {
  if (!isRecord(body) || body['success'] !== false || !isRecord(body['error'])) return undefined;
  const { code, message, details } = body['error'];
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  const parsed: { code: string; known: boolean; message: string; details?: ErrorDetails } = {
    code,
    known: isErrorCode(code),
    message,
  };
  if (isRecord(details)) parsed.details = details;
  return parsed;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
