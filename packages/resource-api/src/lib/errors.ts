/**
 * The API's error table. Each class is one row: wire code, HTTP status and when it is used. Handlers
 * and middleware throw these; the error handler (`http/error-handler.ts`) writes every one of them in
 * the RFC 6749 §5.2 shape `{error, error_description, ...extra}` with its headers. Anything else that
 * is thrown becomes a generic 500 `server_error`.
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
 * non-ASCII, e.g. echoed input) `?`; at most {@link MAX_DESCRIPTION} characters.
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
export class ApiError extends Error {
  /** The `error_description`, already within RFC 6749's character set. */
  readonly description: string;

  constructor(
    readonly status: number,
    readonly code: string,
    description: string,
    readonly headers: Record<string, string> = {},
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
export class InvalidRequestError extends ApiError {
  constructor(problems: Problem[] | string) {
    const list = typeof problems === 'string' ? [{ path: '', message: problems }] : problems;
    const text = list.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; ');
    super(400, 'invalid_request', text, {}, typeof problems === 'string' ? {} : { problems: list });
  }
}

/** 401 `invalid_token`: missing-in-form, malformed, unknown, expired, revoked or foreign-audience token. */
export class InvalidTokenError extends ApiError {
  constructor(description: string, headers: Record<string, string>) {
    super(401, 'invalid_token', description, headers);
  }
}

/** 403 `insufficient_scope`: a valid token that lacks the operation's scope. */
export class InsufficientScopeError extends ApiError {
  constructor(scope: string, headers: Record<string, string>) {
    super(403, 'insufficient_scope', `this operation needs the scope ${scope}`, headers, {
      required_scopes: [scope],
    });
  }
}

/** 403 `access_denied`: an anonymous request to an operation without a public view. Never a 401. */
export class AccessDeniedError extends ApiError {
  constructor(scope: string, headers: Record<string, string>) {
    super(
      403,
      'access_denied',
      `this operation needs an access token with the scope ${scope}; see the Link header for how to get one`,
      headers,
      { required_scopes: [scope] },
    );
  }
}

/** 404 `not_found`: unknown path, unknown id, malformed id, or an item outside the caller's view. */
export class NotFoundError extends ApiError {
  constructor(description = 'no such resource') {
    super(404, 'not_found', description);
  }
}

/** 405 `method_not_allowed`: the path exists but not with this method. */
export class MethodNotAllowedError extends ApiError {
  constructor(allowed: string[]) {
    super(405, 'method_not_allowed', `allowed methods: ${allowed.join(', ')}`, { Allow: allowed.join(', ') });
  }
}

/** 409 `conflict`: a unique field (slug, code, email) is already taken. */
export class ConflictError extends ApiError {
  constructor(description: string) {
    super(409, 'conflict', description);
  }
}

/** 413 `request_too_large`: the body is over the configured limit. */
export class PayloadTooLargeError extends ApiError {
  constructor(limit: number) {
    super(413, 'request_too_large', `the request body exceeds the limit of ${limit} bytes`);
  }
}

/** 415 `unsupported_media_type`: a body in a media type the operation does not take. */
export class UnsupportedMediaTypeError extends ApiError {
  constructor(expected: string) {
    super(415, 'unsupported_media_type', `the request body must be ${expected}`);
  }
}

/** 503 `temporarily_unavailable`: the auth server (or the database) cannot be reached. Never a 401. */
export class TemporarilyUnavailableError extends ApiError {
  constructor(description = 'the authorization server cannot be reached; try again shortly') {
    super(503, 'temporarily_unavailable', description, { 'Retry-After': '5' });
  }
}

/** 500 `server_error`: anything unexpected; the text is generic, the details go to the log only. */
export class ServerError extends ApiError {
  constructor(requestId: string) {
    super(500, 'server_error', 'an unexpected error occurred', {}, { request_id: requestId });
  }
}
