/**
 * Whether a resource indicator (RFC 8707 `resource`) or a token's `aud` names this API, once for both
 * services: the auth server decides which `resource` it binds a token to, the API which `aud` it
 * accepts.
 *
 * The API's identifier is BASE_URL, with or without one trailing slash. Scheme and host compare
 * case-insensitively (URI schemes and DNS names are case-insensitive, RFC 3986 §6.2.2.1, and the MCP
 * authorization spec of 2026-07-28 asks for it: clients write `HTTPS://School.Example`); everything
 * else byte for byte, without a URL parser's normalisation, so a default port written out, a path, a
 * doubled slash, a query, a fragment or a host suffix still names another resource.
 */

const SCHEME_AND_AUTHORITY = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#@]*)(.*)$/s;

/** ASCII letters only: `toLowerCase` would also fold look-alikes such as the Kelvin sign into `k`. */
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));

/** `uri` with its scheme and host in lower case; anything that does not look like one, unchanged. */
function foldSchemeAndHost(uri: string): string {
  const match = SCHEME_AND_AUTHORITY.exec(uri);
  return match ? `${asciiLower(match[1]!)}${asciiLower(match[2]!)}${match[3]}` : uri;
}

/** True when `name` is the resource identifier `resource` (BASE_URL, no trailing slash). */
export function namesResource(name: string, resource: string): boolean {
  const folded = foldSchemeAndHost(name);
  const canonical = foldSchemeAndHost(resource);
  return folded === canonical || folded === `${canonical}/`;
}
