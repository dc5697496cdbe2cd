/**
 * Audience restriction (RFC 9700 §2.3, RFC 8707 §2): is a token meant for this API? A token without
 * `aud` is unbound and good everywhere its scopes are (DESIGN.md §2). A bound one must name this
 * API's resource identifier — BASE_URL, with or without one trailing slash, compared byte for byte
 * (no case folding, no normalisation: `HTTP://...`, `...:8080/api` or `...:8080.evil` name another
 * resource). An empty `aud` list names no resource at all and is refused.
 */

/** True when a token with this `aud` may be used at `resource` (`BASE_URL`, no trailing slash). */
export function audienceAccepts(aud: string | readonly string[] | undefined, resource: string): boolean {
  if (aud === undefined) return true;
  const names = typeof aud === 'string' ? [aud] : aud;
  return names.some((name) => name === resource || name === `${resource}/`);
}
