/**
 * The error table both services answer from (error classes that are the RFC table). Each
 * class is one row: wire code, HTTP status, headers and when it is used. Code throws these; each
 * service's one error middleware writes them in the RFC 6749 §5.2 shape `{error, error_description,
 * ...extra}` with their headers. One condition has one wire code whichever service answers it: a
 * wrong method is `method_not_allowed`, a body over the limit `request_too_large`, an unreachable
 * dependency `temporarily_unavailable` with `Retry-After`.
 *
 * The resource API adds its RFC 6750 rows (invalid_token, insufficient_scope, access_denied) in
 * `resource-api/src/lib/errors.ts`; oidc-provider's own errors keep their codes and pass through the
 * same description rule ({@link rfc6749Text}).
 */

/** One validation problem: where (`body.title`, `query.limit`) and what. */
export interface Problem {
  path: string;
  message: string;
}

/** Longest `error_description` sent; `problems` keeps every detail. */
const MAX_DESCRIPTION = 1000;

/**
 * Makes a text a valid RFC 6749 §5.2 `error_description`: only %x20-21 / %x23-5B / %x5D-7E (printable
 * ASCII without `"` and `\`), so `"` becomes `'`, `\` becomes `/` and anything else (controls,
 * non-ASCII, e.g. echoed input) `?`; at most 1,000 characters.
 */
export function rfc6749Text(text: string): string {
  let out = '';
  for (const c of text) {
    if (out.length >= MAX_DESCRIPTION) return `${out.slice(0, MAX_DESCRIPTION - 3)}...`;
    const code = c.codePointAt(0)!;
    out += c === '"' ? "'" : c === '\\' ? '/' : code >= 0x20 && code <= 0x7e ? c : '?';
  }
  return out;
}

/** Base class: an error that is meant to reach the client as written. */
export class OAuthError extends Error {
  /** The `error_description`, already within RFC 6749's character set. */
  readonly description: string;

  constructor(
    readonly status: number,
    readonly code: string,
    description: string,
    /** Response headers; a middleware on the way out may add its own (CORS). */
    public headers: Record<string, string> = {},
    readonly extra: Record<string, unknown> = {},
  ) {
    const safe = rfc6749Text(description);
    super(safe);
    this.description = safe;
    this.name = new.target.name;
  }

  /** The JSON body. */
  toBody(): Record<string, unknown> {
    return { error: this.code, error_description: this.description, ...this.extra };
  }
}

/** 400 `invalid_request`: the request is malformed; `problems` lists every problem found, not the first. */
export class InvalidRequestError extends OAuthError {
  constructor(problems: Problem[] | string) {
    const list = typeof problems === 'string' ? [{ path: '', message: problems }] : problems;
    const text = list.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; ');
    super(400, 'invalid_request', text, {}, typeof problems === 'string' ? {} : { problems: list });
  }
}

/** 401 `invalid_client`: the client's authentication is missing, unsupported or wrong (RFC 6749 §5.2). */
export class InvalidClientError extends OAuthError {
  constructor(description: string, headers: Record<string, string> = {}) {
    super(401, 'invalid_client', description, headers);
  }
}

/**
 * 400 `unauthorized_client` (RFC 6749 §5.2, RFC 8628 §3.2): the client may not use this endpoint now;
 * the auth server's answer to an app the school blocked or has not yet reviewed, at the token and
 * device authorization endpoints.
 */
export class UnauthorizedClientError extends OAuthError {
  constructor(description: string) {
    super(400, 'unauthorized_client', description);
  }
}

/** 404 `not_found`: unknown path, unknown id, malformed id, or an item outside the caller's view. */
export class NotFoundError extends OAuthError {
  constructor(description = 'no such resource') {
    super(404, 'not_found', description);
  }
}

/** 405 `method_not_allowed`: the path exists but not with this method; `Allow` lists the methods. */
export class MethodNotAllowedError extends OAuthError {
  constructor(allowed: readonly string[]) {
    super(405, 'method_not_allowed', `allowed methods: ${allowed.join(', ')}`, { Allow: allowed.join(', ') });
  }
}

/** 409 `conflict`: a unique field (slug, code, email) is already taken. */
export class ConflictError extends OAuthError {
  constructor(description: string) {
    super(409, 'conflict', description);
  }
}

/** 413 `request_too_large`: the body is over the limit (in bytes). */
export class RequestTooLargeError extends OAuthError {
  constructor(limit: number) {
    super(413, 'request_too_large', `the request body exceeds the limit of ${limit} bytes`);
  }
}

/** 415 `unsupported_media_type`: a body in a media type or content coding the endpoint does not take. */
export class UnsupportedMediaTypeError extends OAuthError {
  constructor(description: string, headers: Record<string, string> = {}) {
    super(415, 'unsupported_media_type', description, headers);
  }
}

/**
 * 400 `slow_down` (RFC 8628 §3.5): a device polled the token endpoint again before its interval was
 * up; it must wait 5 seconds longer from now on. The pairing is still pending.
 */
export class SlowDownError extends OAuthError {
  constructor(intervalSeconds: number) {
    super(400, 'slow_down', `polling too fast: wait ${intervalSeconds} seconds between requests`);
  }
}

/** 429 `too_many_requests`: a rate limit was hit; `Retry-After` says when to come back. */
export class TooManyRequestsError extends OAuthError {
  constructor(description: string, retryAfterSeconds: number) {
    super(429, 'too_many_requests', description, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/** 503 `temporarily_unavailable`: a dependency (auth server, database, Redis) cannot be reached. */
export class TemporarilyUnavailableError extends OAuthError {
  constructor(description: string) {
    super(503, 'temporarily_unavailable', description, { 'Retry-After': '5' });
  }
}

/** 500 `server_error`: anything unexpected; the text is generic, the details go to the log only. */
export class ServerError extends OAuthError {
  constructor(requestId: string) {
    super(500, 'server_error', 'an unexpected error occurred', {}, { request_id: requestId });
  }
}
