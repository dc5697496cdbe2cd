/**
 * The API's error table: the shared rows (`@school/shared` oauth-errors.ts: invalid_request,
 * not_found, method_not_allowed, conflict, request_too_large, unsupported_media_type,
 * temporarily_unavailable, server_error) and the resource server's own of RFC 6750 below. Handlers
 * and middleware throw these; the error handler (`http/error-handler.ts`) writes every one of them in
 * the RFC 6749 §5.2 shape `{error, error_description, ...extra}` with its headers. Anything else that
 * is thrown becomes a generic 500 `server_error`.
 */
import { OAuthError } from '@school/shared';

export {
  ConflictError,
  InvalidRequestError,
  MethodNotAllowedError,
  NotFoundError,
  OAuthError,
  RequestTooLargeError,
  ServerError,
  TemporarilyUnavailableError,
  UnsupportedMediaTypeError,
  rfc6749Text,
  type Problem,
} from '@school/shared';

/** 401 `invalid_token`: missing-in-form, malformed, unknown, expired, revoked or foreign-audience token. */
export class InvalidTokenError extends OAuthError {
  constructor(description: string, headers: Record<string, string>) {
    super(401, 'invalid_token', description, headers);
  }
}

/** 401 `invalid_dpop_proof` (RFC 9449 §7.1): a DPoP-bound token whose proof is missing or wrong. */
export class InvalidDpopProofError extends OAuthError {
  constructor(description: string, headers: Record<string, string>) {
    super(401, 'invalid_dpop_proof', description, headers);
  }
}

/**
 * What a 403 `insufficient_scope` tells the client: the scope needed, and what gets it. A refresh never
 * adds a scope (the refreshed token carries the grant's scopes), and some clients answer this 403 by
 * refreshing and then give up; so it says that a new authorization request for the scopes the token
 * holds plus the one needed is what works, and spells that union out. Printable ASCII without quotes
 * or `scope=` (a client's parser of the challenge must find only the real `scope` parameter), so it
 * goes into the `WWW-Authenticate` header unchanged.
 */
export function insufficientScopeText(scope: string, held: Iterable<string>): string {
  const union = [...new Set([...held, scope])].join(' ');
  return (
    `this operation needs the scope ${scope}, which this token lacks. A refresh cannot add a scope: ` +
    `start a new authorization request (authorization code with PKCE) for the union of the scopes ` +
    `this token holds and ${scope} (${union})`
  );
}

/** 403 `insufficient_scope`: a valid token (holding `held`) that lacks the operation's scope. */
export class InsufficientScopeError extends OAuthError {
  constructor(scope: string, description: string, headers: Record<string, string>) {
    super(403, 'insufficient_scope', description, headers, {
      required_scopes: [scope],
    });
  }
}

/** 403 `access_denied`: an anonymous request to an operation without a public view. Never a 401. */
export class AccessDeniedError extends OAuthError {
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
