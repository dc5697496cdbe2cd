/**
 * The storage layout in Redis: the keys and the channel of oidc-provider's storage and of what is
 * kept beside it, under the configured prefix (REDIS_KEY_PREFIX, e.g. `oidc:`), named in one place.
 * (Rate-limit counters, the login guard and the client sweep keep keys of their own.)
 *
 *   `<Model>:<id>`       a JSON string (SET … EX), or for consumable models (codes, refresh tokens) a
 *                        hash `{p: payload, c: consumedAt}` so consumption is one atomic HSETNX that
 *                        keeps the TTL and survives restarts (redis-adapter.ts);
 *   `grant:<grantId>`    a list of the keys of every token issued under that grant, expiring with the
 *                        longest of them (EXPIRE NX then EXPIRE GT, in the same atomic script: no TTL read
 *                        before writing);
 *   `sessionUid:<uid>`   the id of the Session with that uid, with the Session's TTL;
 *   `clientGrants:<clientId>`  the ids of every Grant of that client, expiring with the longest of
 *                        them (as the grant list): what deleting a client ends first (client-removal.ts);
 *   `accountGrants:<accountId>`  the ids of every Grant of that account, expiring with the longest of
 *                        them: what Connected apps lists (account-grants.ts); ids of grants since gone
 *                        are dropped when read;
 *   `accountSessions:<accountId>`  a sorted set of the ids of that account's login Sessions, scored by
 *                        their expiry (Unix seconds), expiring with the last of them: what "sign out
 *                        everywhere" and a password change end (account-sessions.ts); written beside the
 *                        Session, not in its script, so each script keeps to one key's slot;
 *   `grantUsedAt:<grantId>`  when that grant's tokens were last used, Unix seconds, expiring with the
 *                        grant's longest life (grant-usage.ts);
 *   `clientUsedAt`       a hash, client id → when its tokens were last used, Unix seconds (client-usage.ts);
 *   `cimd:<url>`         a hash: the cache entry of one Client ID Metadata Document (the checked document,
 *                        fresh/stale deadlines, the last fetch's status and error; cimd/cimd-resolver.ts);
 *   `cimdAllowed`        a set of the metadata-document client ids an operator allowed https redirect
 *                        URIs (`school-auth clients allow-cimd`);
 *   `cimdConsent:<grantId>`  the hash of the metadata-document client a grant's consent was given to
 *                        (cimd/cimd-consent.ts), for the grant's lifetime;
 *   `revocations`        the pub/sub channel revoked access tokens are published on (revocations.ts).
 */

/** The prefix of every key of one oidc-provider model, e.g. `oidc:Client:`. */
export function modelPrefix(prefix: string, model: string): string {
  return `${prefix}${model}:`;
}

/** The key of one stored model instance, e.g. `oidc:Client:<id>`. */
export function modelKey(prefix: string, model: string, id: string): string {
  return `${prefix}${model}:${id}`;
}

/** The prefix of the lists of token keys per grant (`grant:`, lower case: not the Grant model). */
export function grantListPrefix(prefix: string): string {
  return `${prefix}grant:`;
}

/** The key of the Session id stored under a session uid. */
export function sessionUidKey(prefix: string, uid: string): string {
  return `${prefix}sessionUid:${uid}`;
}

/** The prefix of the sets of a client's grant ids. */
export function clientGrantsPrefix(prefix: string): string {
  return `${prefix}clientGrants:`;
}

/** The key of the set of a client's grant ids. */
export function clientGrantsKey(prefix: string, clientId: string): string {
  return `${clientGrantsPrefix(prefix)}${clientId}`;
}

/** The hash of last-use times (client id → Unix seconds). */
export function usageKey(prefix: string): string {
  return `${prefix}clientUsedAt`;
}

/** The answer a rotated refresh token's refresh gave, kept for the grace period (refresh-grace.ts). */
export function refreshAnswerKey(prefix: string, tokenId: string): string {
  return `${prefix}RefreshAnswer:${tokenId}`;
}

/** The prefix of the cache entries of Client ID Metadata Documents. */
export function cimdEntryPrefix(prefix: string): string {
  return `${prefix}cimd:`;
}

/** The cache entry of the Client ID Metadata Document at `url`. */
export function cimdEntryKey(prefix: string, url: string): string {
  return `${cimdEntryPrefix(prefix)}${url}`;
}

/** The set of metadata-document client ids allowed https redirect URIs. */
export function cimdAllowedKey(prefix: string): string {
  return `${prefix}cimdAllowed`;
}

/** The key of the client hash a metadata-document client's grant was consented for. */
export function cimdConsentKey(prefix: string, grantId: string): string {
  return `${prefix}cimdConsent:${grantId}`;
}

/** The key of the set of an account's grant ids. */
export function accountGrantsKey(prefix: string, accountId: string): string {
  return `${prefix}accountGrants:${accountId}`;
}

/** The key of a grant's last-use time (Unix seconds). */
export function grantUsageKey(prefix: string, grantId: string): string {
  return `${prefix}grantUsedAt:${grantId}`;
}

/** The key of the sorted set of an account's login session ids. */
export function accountSessionsKey(prefix: string, accountId: string): string {
  return `${prefix}accountSessions:${accountId}`;
}
