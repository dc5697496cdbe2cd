/**
 * The `Authorization` request header, read strictly (RFC 6750 §2.1, RFC 9449 §7.1, RFC 9110 §11.6.2):
 *
 *     credentials = ( "Bearer" / "DPoP" ) 1*SP b64token
 *     b64token    = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
 *
 * The scheme is case-insensitive; nothing else is accepted: another scheme, a missing or empty
 * token, a second token, characters outside b64token (quotes, controls, non-ASCII) or a token over
 * {@link MAX_TOKEN_LENGTH}. Such a header is 401 `invalid_token` without ever reaching the auth server,
 * so junk cannot cost an introspection or a slot in the negative cache.
 */

/** Longest token accepted: the auth server's are 43 characters; anything near this is not one of them. */
export const MAX_TOKEN_LENGTH = 2048;

const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** The two schemes, as written in challenges. */
export type TokenScheme = 'Bearer' | 'DPoP';

/** What the header says: a token and its scheme, or why it is not one. */
export type ParsedAuthorization =
  { ok: true; token: string; scheme: TokenScheme } | { ok: false; reason: string };

const SCHEMES: Readonly<Record<string, TokenScheme>> = { bearer: 'Bearer', dpop: 'DPoP' };

/** The header's required form, as said to a client that got it wrong. */
export const AUTHORIZATION_FORM =
  'the Authorization header must have the form: Bearer <access token> (or DPoP <access token> for a DPoP-bound one)';

/** Parses an `Authorization` header value (as Node gives it: surrounding whitespace removed). */
export function parseAuthorization(value: string): ParsedAuthorization {
  const space = value.indexOf(' ');
  const scheme = SCHEMES[(space === -1 ? value : value.slice(0, space)).toLowerCase()];
  if (!scheme) return { ok: false, reason: AUTHORIZATION_FORM };
  const token = space === -1 ? '' : value.slice(space).replace(/^ +/, '');
  if (!token) return { ok: false, reason: 'the Authorization header carries no access token' };
  if (token.length > MAX_TOKEN_LENGTH) return { ok: false, reason: 'the access token is too long' };
  if (!B64TOKEN.test(token)) {
    return { ok: false, reason: 'the access token has characters no access token has (RFC 6750 b64token)' };
  }
  return { ok: true, token, scheme };
}
