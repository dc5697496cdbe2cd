/**
 * What kind of client a person is dealing with, in the one place every page asks it (the consent
 * page, Connected apps, All clients, the CLI's listing): how much the name it shows can be trusted.
 *
 * - `open`: registered itself through open registration; its name is self-declared, nobody checked it.
 * - `metadata-document`: its `client_id` is an https URL (a Client ID Metadata Document); the host of
 *   that URL is verified (the document was fetched from it), the name is not.
 * - `integration`: created by an operator, who vouches for its name: a confidential one with fixed
 *   https callbacks (`school-auth clients create-integration`), or a public one with a loopback
 *   callback for a client that cannot register itself (`school-auth clients create-native`).
 * - `service`: an introspecting service an operator created (`school-auth clients create-introspector`):
 *   it checks tokens and never signs anyone in, so only the operator pages (All clients) show it.
 * - `console`: this service's own account pages (provider/account-console.ts).
 */
import { isCimdClientId } from './client-id-url.js';

/** The extra client property that marks operator-created clients; open registration may not set it. */
export const CLIENT_ROLE = 'client_role';

/** What an operator-created client is for. */
export type ClientRole = 'integration' | 'native' | 'introspector';

/** One kind of client; see the module comment. */
export type ClientKind = 'open' | 'metadata-document' | 'integration' | 'service' | 'console';

/** The client id of this service's own account pages (a configured client, never stored in Redis). */
export const ACCOUNT_CONSOLE_CLIENT_ID = 'school-account-pages';

/** What {@link clientKind} reads: a client's id and its stored metadata. */
export interface ClientIdentity {
  clientId: string;
  metadata(): Record<string, unknown>;
}

/** The kind of `client`. */
export function clientKind(client: ClientIdentity): ClientKind {
  if (client.clientId === ACCOUNT_CONSOLE_CLIENT_ID) return 'console';
  const role = client.metadata()[CLIENT_ROLE];
  if (role === 'integration' || role === 'native') return 'integration';
  if (role === 'introspector') return 'service';
  if (isCimdClientId(client.clientId)) return 'metadata-document';
  return 'open';
}

/**
 * Whether `client` may introspect every token, not only its own: the resource API's configured client
 * (`staticIntrospector`) and the introspecting services an operator created.
 */
export function mayIntrospectEveryToken(client: ClientIdentity, staticIntrospector: string): boolean {
  return client.clientId === staticIntrospector || clientKind(client) === 'service';
}

/**
 * Nobody vouched for `client`: it registered itself, or it is a metadata-document client no operator
 * allowed `https` callbacks (a loopback-only, native one). Its consent page starts with the scopes
 * that change data unticked.
 */
export function isSelfDeclared(client: ClientIdentity): boolean {
  const kind = clientKind(client);
  if (kind === 'open') return true;
  return kind === 'metadata-document' && client.metadata().application_type !== 'web';
}

/**
 * Whether `client` runs in its provider's cloud: every redirect URI it may use is a fixed https
 * callback (an operator's integration, or a metadata-document client an operator allowed https
 * callbacks with no loopback one beside them). Open and loopback clients run on someone's machine. The
 * refresh-token reuse window judges a hosted client's rotated tokens by its rules for hosted clients
 * (provider/refresh-extension/).
 */
export function hasFixedHttpsCallbacks(client: ClientIdentity): boolean {
  const kind = clientKind(client);
  if (kind !== 'integration' && kind !== 'metadata-document') return false;
  const uris = client.metadata().redirect_uris;
  return (
    Array.isArray(uris) &&
    uris.length > 0 &&
    uris.every((uri) => typeof uri === 'string' && URL.parse(uri)?.protocol === 'https:')
  );
}

/** The host a metadata-document client's id was fetched from (`undefined` for other kinds). */
export function verifiedHost(clientId: string): string | undefined {
  return isCimdClientId(clientId) ? URL.parse(clientId)?.host : undefined;
}
