/**
 * Which `client_id` values are Client ID Metadata Document URLs (draft-ietf-oauth-client-id-metadata-
 * document, §3): an `https` URL with a path, no fragment, no credentials, no `.`/`..` segments. Only a
 * URL written exactly as a URL parser writes it back counts (lower-case scheme and host, no default
 * port, no stray characters), so one client has one id and the id we fetch is the id the document must
 * repeat byte for byte. Anything else is looked up as a stored client, as before.
 */
import { REGISTRATION_CAPS } from '@school/shared';

const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=[/?]|$)/i;

/** True when `clientId` names a Client ID Metadata Document. */
export function isCimdClientId(clientId: string): boolean {
  if (clientId.length > REGISTRATION_CAPS.string || !clientId.startsWith('https://')) return false;
  const url = URL.parse(clientId);
  if (!url || url.href !== clientId) return false;
  if (url.username || url.password || url.hash || clientId.includes('#')) return false;
  if (url.pathname === '/' || DOT_SEGMENT.test(url.pathname)) return false;
  return true;
}
