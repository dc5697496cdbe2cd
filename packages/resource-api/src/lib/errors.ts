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

/** 403 `insufficient_scope`: a valid token that lacks the operation's scope. */
export class InsufficientScopeError extends OAuthError {
  constructor(scope: string, headers: Record<string, string>) {
    super(403, 'insufficient_scope', `this operation needs the scope ${scope}`, headers, {
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
