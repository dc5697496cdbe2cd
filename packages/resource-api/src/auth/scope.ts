/**
 * The `scope` of an introspection answer (RFC 7662 §2.2): scope tokens separated by single spaces,
 * each 1*( %x21 / %x23-5B / %x5D-7E ) (RFC 6749 §3.3). Matching is exact and case-sensitive: a token
 * grants only the scope it names. Anything that is not a well-formed scope token (an empty token from
 * doubled spaces, a tab or another control, a quote, a backslash, non-ASCII) grants nothing.
 */

const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** The set of scope tokens in a `scope` string (absent: none). */
export function parseScope(scope: string | undefined): ReadonlySet<string> {
  if (!scope) return new Set();
  return new Set(scope.split(' ').filter((token) => SCOPE_TOKEN.test(token)));
}
