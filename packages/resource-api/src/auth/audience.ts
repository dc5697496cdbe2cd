/**
 * Audience restriction (RFC 9700 §2.3, RFC 8707 §2): is a token meant for this API? A token without
 * `aud` is unbound and good everywhere its scopes are (docs/decisions.md). A bound one must name this
 * API's resource identifier by the rule the auth server binds with (`@school/shared`
 * resource-identifier.ts: BASE_URL with or without one trailing slash, scheme and host in any case,
 * the rest byte for byte). An empty `aud` list names no resource at all and is refused.
 */
import { namesResource } from '@school/shared';

/** True when a token with this `aud` may be used at `resource` (`BASE_URL`, no trailing slash). */
export function audienceAccepts(aud: string | readonly string[] | undefined, resource: string): boolean {
  if (aud === undefined) return true;
  const names = typeof aud === 'string' ? [aud] : aud;
  return names.some((name) => namesResource(name, resource));
}
