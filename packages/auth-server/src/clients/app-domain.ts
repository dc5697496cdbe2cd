/**
 * The domain rule of the school's app reviews (storage/app-reviews.ts): an admin may allow or block
 * every metadata-document client (clients/client-id-url.ts) of one domain at once. A rule for a domain
 * matches a client whose id's host is that domain exactly, or ends with a dot and that domain: the rule
 * for `example.com` matches `example.com` and `mcp.example.com`, never `evil-example.com` nor
 * `example.com.evil`. Both sides are compared as the URL parser writes a host: lower case, IDNs in
 * punycode (`bücher.example` is `xn--bcher-kva.example`), without a final dot and without a port (a
 * domain rule covers every port of its hosts). A rule for an IP address matches that address only.
 */
import { domainToASCII } from 'node:url';
import { isIP } from 'node:net';
import { isCimdClientId } from './client-id-url.js';

/** The longest domain an admin may name (RFC 1035's limit on a name). */
const DOMAIN_MAX = 253;

/** `host` without one final dot, as the comparison reads it. */
const withoutFinalDot = (host: string) => (host.endsWith('.') ? host.slice(0, -1) : host);

/**
 * The domain an admin typed, in the form the rule is stored and compared in; an Error saying why it
 * is not a domain (a URL, a port, a path, a wildcard, an empty or too long name).
 */
export function reviewDomain(input: string): string | Error {
  const typed = withoutFinalDot(input.trim());
  if (!typed) return new Error('name a domain, e.g. example.com');
  if (/[\s/:@*?#\\[\]]/.test(typed))
    return new Error(
      `${input.trim()} is not a domain: name the host only (no scheme, port, path or wildcard)`,
    );
  const ascii = isIP(typed) ? typed : domainToASCII(typed);
  if (!ascii || ascii.length > DOMAIN_MAX || ascii.split('.').some((label) => !label))
    return new Error(`${input.trim()} is not a domain`);
  return ascii;
}

/** The host of a metadata-document client's id, as the rule compares it; undefined for other ids. */
export function clientIdHost(clientId: string): string | undefined {
  if (!isCimdClientId(clientId)) return undefined;
  const host = URL.parse(clientId)?.hostname;
  return host ? withoutFinalDot(host) : undefined;
}

/** Whether the rule for `domain` ({@link reviewDomain}'s form) covers `host` ({@link clientIdHost}'s). */
export function domainCovers(domain: string, host: string): boolean {
  if (host === domain) return true;
  if (isIP(domain) || isIP(host.replace(/^\[|\]$/g, ''))) return false;
  return host.endsWith(`.${domain}`);
}

/**
 * Every domain whose rule would cover `host`: the host itself and each of its parent domains
 * (`a.b.example.com`, `b.example.com`, `example.com`, `com`), for one lookup of them all.
 */
export function coveringDomains(host: string): string[] {
  if (isIP(host.replace(/^\[|\]$/g, ''))) return [host];
  const labels = host.split('.');
  return labels.map((_, i) => labels.slice(i).join('.')).filter(Boolean);
}
