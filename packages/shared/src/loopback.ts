/**
 * The loopback redirect rule of open registration (docs/decisions.md, RFC 8252 §7.3), once for both
 * services: the auth server enforces it, the resource API documents it in `/openapi.json`.
 *
 * A redirect URI is matched as the client TYPED it, not as a URL parser reads it: WHATWG URL parsing
 * turns `http://127.1/`, `http://2130706433/`, `http://0x7f000001/`, full-width digits, `HTTP://LOCALHOST./`
 * and `http:127.0.0.1/cb` into `http://127.0.0.1/...`, so a parser-based check accepted them all and
 * the consent page and the stored metadata showed confusing forms. Only the canonical spelling is
 * accepted: `http://`, then `127.0.0.1`, `[::1]` or `localhost` in lower case, an optional port
 * written plainly (1-65535, no leading zero), and a path (with an optional query) of RFC 3986
 * characters and well-formed percent-escapes, without `.` or `..` segments; no credentials, no
 * fragment, no backslash, no space.
 */

/** The host spellings a self-registered redirect URI may use, as `URL.hostname` writes them too. */
export const LOOPBACK_HOSTS: readonly string[] = ['127.0.0.1', '[::1]', 'localhost'];

const PORT = '(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])';
const PATH_CHAR = "(?:[A-Za-z0-9\\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})";

/** An open-registration redirect URI in its only accepted form (also the OpenAPI `pattern`). */
export const LOOPBACK_REDIRECT_URI = new RegExp(
  `^http://(?:127\\.0\\.0\\.1|\\[::1\\]|localhost)(?::${PORT})?(?:/${PATH_CHAR}*)?$`,
);

/** A `.` or `..` path segment, plain or percent-encoded: URL parsers resolve them away. */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=[/?]|$)/i;

/** True when `uri` is a loopback redirect URI written exactly in the canonical form. */
export function isLoopbackRedirectUri(uri: string): boolean {
  if (!LOOPBACK_REDIRECT_URI.test(uri)) return false;
  const query = uri.indexOf('?');
  return !DOT_SEGMENT.test(query === -1 ? uri : uri.slice(0, query));
}

/** True when a parsed URL's `hostname` is one of the loopback hosts. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.includes(hostname);
}
