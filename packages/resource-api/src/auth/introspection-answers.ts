/**
 * What an introspection answer other than 200 means.
 *
 * The API's request carries only its own credentials and the caller's token. So a refusal that is
 * about the request can only be about the token, and the caller is told 401 `invalid_token` (the
 * answer is cached like any inactive token); a refusal of our credentials is our outage, not the
 * caller's fault: 503, logged as an error for the operator. Everything else (5xx, 429, an answer
 * nobody expects) says nothing about the token: 503, the API does not know.
 *
 * | answer                                                            | meaning       | API says |
 * |-------------------------------------------------------------------|---------------|----------|
 * | 400 `unsupported_token_type`, `invalid_request`, `invalid_token`   | the token     | 401      |
 * | 413, 414, 431 (the token made the request too large)              | the token     | 401      |
 * | 401 (any), 403, 400 `invalid_client` / `unauthorized_client`       | our client    | 503, error log |
 * | 429, 5xx, anything else                                           | unknown       | 503      |
 */

/** The OAuth errors in a 400 that can only be about the token we sent. */
const TOKEN_ERRORS = new Set(['unsupported_token_type', 'invalid_request', 'invalid_token']);
/** Statuses the size of the token alone can cause. */
const TOO_LARGE = new Set([413, 414, 431]);
/** The OAuth errors that refuse our client. */
const CLIENT_ERRORS = new Set(['invalid_client', 'unauthorized_client']);

/** Who a non-200 introspection answer blames. */
export type Refusal = 'token' | 'credentials' | 'unknown';

/** Classifies a non-200 answer by its status and, when the body had one, its OAuth `error`. */
export function refusalOf(status: number, error: string | undefined): Refusal {
  if (status === 401 || status === 403) return 'credentials';
  if (status === 400 && error !== undefined && CLIENT_ERRORS.has(error)) return 'credentials';
  if (status === 400 && error !== undefined && TOKEN_ERRORS.has(error)) return 'token';
  if (TOO_LARGE.has(status)) return 'token';
  return 'unknown';
}
