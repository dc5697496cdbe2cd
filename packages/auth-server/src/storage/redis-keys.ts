/**
 * The storage layout in Redis: every key and the channel of oidc-provider's storage and of what is
 * kept beside it, under the configured prefix (REDIS_KEY_PREFIX, e.g. `oidc:`), built here and
 * nowhere else. Every Lua script is in redis-scripts.ts.
 *
 * THE SLOT RULE (Redis Cluster). A cluster spreads keys over 16384 hash slots by the text
 * between the first `{` and the next `}` of a key (its hash tag), else by the whole key; a script or
 * a multi-key command may only touch keys of ONE slot. So:
 *
 * - By grant: a grant, its token list and every token issued under it (codes, access and refresh
 *   tokens, each rotation of a refresh token, and any record about them: a rotated refresh token's
 *   kept answer, a metadata-document client's consent hash, the grant's last-use time) share the tag `{<first 12 characters of the grant id>}`. The grant-bound models'
 *   token ids START with those 12 characters (provider/grant-token-ids.ts mints them so), so the
 *   key of a presented token is known from the token alone: `<Model>:{<id[0,12)>}<id[12,)>`. A new
 *   key about a grant or one of its tokens is built with {@link grantScopedKey} and joins that slot.
 * - Per client: a client's grant index `clientGrants:{<clientId>}` is a slot of its own; the client
 *   record `Client:<id>` keeps its historical, untagged key (registered clients survive the upgrade).
 *   Nothing touches a client and its index in one command (client-removal.ts sequences them), and
 *   a token read checks its client with a second, pipelined read (redis-adapter.ts).
 * - Everything else is one key per command: sessions (`Session:<id>` and `sessionUid:<uid>` are
 *   written one after the other), interactions, the last-use hash, the rate limiter's counters
 *   (rate-limiter-flexible's, and the introspection limit's own: one key per command), the login
 *   guard's, the sweep's lock, and the metadata-document cache (`cimd:<url>` and the `Client:<url>`
 *   it stores are written one after the other, cimd/cimd-resolver.ts; `cimdAllowed`), an account's
 *   grant index `accountGrants:<id>` (written before the grant, as the client's; read with one GET
 *   per grant, account-grants.ts).
 * - The revocation channel is classic pub/sub (PUBLISH): on a cluster every node forwards it to all
 *   nodes, so a subscriber connected to any node hears it. Sharded pub/sub (SPUBLISH) would confine
 *   the traffic to one shard but needs the subscriber to follow that shard through failovers; with
 *   a revocation rate of a few per second the broadcast costs nothing worth that.
 * - Scans walk every primary (`@school/shared` scanKeys) and read what they found one GET per key,
 *   pipelined (getMany): MGET cannot span slots.
 *
 * The keys:
 *   `<Model>:<id>`       a JSON string (SET … EX), or for consumable models (codes, refresh tokens) a
 *                        hash `{p: payload, c: consumedAt}` so consumption is one atomic HSETNX that
 *                        keeps the TTL and survives restarts (redis-adapter.ts); tagged by grant for
 *                        {@link GRANT_SCOPED} models;
 *   `grant:{tag}<rest>`  a list of the keys of every token issued under that grant, expiring with the
 *                        longest of them (EXPIRE NX then EXPIRE GT, in the same atomic script);
 *   `sessionUid:<uid>`   the id of the Session with that uid, with the Session's TTL;
 *   `clientGrants:{<clientId>}`  the ids of every Grant of that client, expiring with the longest of
 *                        them: what deleting a client ends first (client-removal.ts);
 *   `accountGrants:<accountId>`  the ids of every Grant of that account, expiring with the longest of
 *                        them: what Connected apps lists (account-grants.ts); ids of grants since gone
 *                        are dropped when read; written apart from the Grant (another slot);
 *   `accountSessions:<accountId>`  a sorted set of the ids of that account's login Sessions, scored by
 *                        their expiry (Unix seconds), expiring with the last of them: what "sign out
 *                        everywhere" and a password change end (account-sessions.ts); written beside the
 *                        Session, not in its script, so each script keeps to one key's slot;
 *   `grantUsedAt:{tag}<rest>`  when that grant's tokens were last used, Unix seconds, expiring with the
 *                        grant's longest life (grant-usage.ts), in the grant's slot;
 *   `scopeUsedAt:{tag}<rest>`  a hash, scope → when the API last served an operation needing it under
 *                        that grant, Unix seconds, expiring with the grant's longest life (scope-usage.ts);
 *   `clientUsedAt`       a hash, client id → when its tokens were last used, Unix seconds (client-usage.ts);
 *   `refreshClaim:{tag}<rest>`  the claim of the one request that may rotate (or answer for) that
 *                        refresh token now, for a few seconds (storage/refresh-race.ts), in its grant's slot;
 *   `refreshAnswers:{tag}<rest>`  a list: the token response the claim's holder gave, at its head, for a
 *                        few seconds, read with a blocking read by the concurrent refreshes of the same
 *                        token (storage/refresh-race.ts), in its grant's slot;
 *   `refreshCurrent:{tag}<rest>`  a grant's current refresh token id and where its last rotation came
 *                        from, for the reuse window (REFRESH_REUSE_GRACE, storage/refresh-lineage.ts), in
 *                        the grant's slot;
 *   `grantReuse:{tag}<rest>`  how often and when a rotated refresh token of that grant was answered
 *                        within the reuse window (storage/refresh-lineage.ts), in the grant's slot;
 *   `cimd:<url>`         a hash: the cache entry of one Client ID Metadata Document (the checked document,
 *                        fresh/stale deadlines, the last fetch's status and error; cimd/cimd-resolver.ts);
 *                        written apart from the `Client:<url>` record it stores (another slot);
 *   `cimdAllowed`        a set of the metadata-document client ids an operator allowed https redirect
 *                        URIs (`school-auth clients allow-cimd`);
 *   `appReviews`         a hash, `client <client id>` or `domain <host>` → the school's review of that
 *                        app or domain (allowed or blocked, who, when; storage/app-reviews.ts);
 *   `appReviewRequests`  a hash, client id → the pending request that admins review that app: the app as
 *                        it was shown and who asked (bounded in count, storage/app-review-requests.ts);
 *   `clientEgress`       a hash, client id → the egress ranges an operator listed for that hosted client,
 *                        space separated (`school-auth clients set-egress`, storage/client-egress.ts);
 *   `cimdConsent:{tag}<rest>`  the hash of the metadata-document client a grant's consent was given to
 *                        (provider/cimd-consent.ts), for the grant's lifetime, in the grant's slot;
 *   `userCode:<code>`    the id of the DeviceCode with that (normalized) user code, with its TTL;
 *   `deviceClaim:<id>`   the account that entered that device code first (device-pairing/pairing-claims.ts);
 *   `devicePending:<accountId>`  the id of the one device code that account has entered and not yet
 *                        approved or denied;
 *   `devicePollInterval:<hash>`, `devicePolled:<hash>`  a device code's polling pace (http/device-polling.ts);
 *   `revocations`        the pub/sub channel revoked access tokens are published on (revocations.ts).
 *
 * Every value a request supplies goes into a key of a counter (the rate limits, the sign-in throttle,
 * the metadata-document budgets) through {@link boundedKeyPart}, and per-client counters are made
 * only for clients that exist (http/rate-limit.ts): a flood of made-up values leaves no long keys.
 * Model keys take ids the server minted, or a metadata-document URL (at most
 * `REGISTRATION_CAPS.string` characters, clients/client-id-url.ts), and are written only for clients
 * and tokens that exist.
 */
import { hash } from 'node:crypto';

/** The longest value from a request that goes into a key as it is; a longer one goes in hashed. */
export const KEY_PART_MAX = 64;

/**
 * `value` (a client id, an email, a host name: anything a request supplies) as a part of a key,
 * bounded: as it is up to {@link KEY_PART_MAX} characters, else `sha256:` and its SHA-256. A request
 * can then make no key longer than its fixed parts and this.
 */
export function boundedKeyPart(value: string): string {
  return value.length <= KEY_PART_MAX ? value : `sha256:${hash('sha256', value, 'base64url')}`;
}

/** How many leading characters of a grant id name its hash slot. */
export const GRANT_TAG_LENGTH = 12;

/** The models whose keys live in their grant's slot: the Grant and every grant-bound token. */
export const GRANT_SCOPED = new Set([
  'Grant',
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

/** `{tag}rest` of a grant id or of a token id minted under a grant: its slot, then the rest. */
const tagged = (id: string) => `{${id.slice(0, GRANT_TAG_LENGTH)}}${id.slice(GRANT_TAG_LENGTH)}`;

/** The prefix of a grant id that a token id of that grant starts with (provider/grant-token-ids.ts). */
export function grantTag(grantId: string): string {
  return grantId.slice(0, GRANT_TAG_LENGTH);
}

/**
 * A key in the slot of a grant, or of a token of that grant: `<prefix><kind>:{tag}<rest>` with `id`
 * the grant id or the token id. For any new record about a grant or its tokens.
 */
export function grantScopedKey(prefix: string, kind: string, id: string): string {
  return `${prefix}${kind}:${tagged(id)}`;
}

/** The prefix of every key of one oidc-provider model, e.g. `oidc:Client:`. */
export function modelPrefix(prefix: string, model: string): string {
  return `${prefix}${model}:`;
}

/** The key of one stored model instance, e.g. `oidc:Client:<id>`, `oidc:AccessToken:{tag}<rest>`. */
export function modelKey(prefix: string, model: string, id: string): string {
  return GRANT_SCOPED.has(model) ? grantScopedKey(prefix, model, id) : `${prefix}${model}:${id}`;
}

/** The id of a model instance from its key (the inverse of {@link modelKey}). */
export function idOfKey(prefix: string, model: string, key: string): string {
  const rest = key.slice(modelPrefix(prefix, model).length);
  return GRANT_SCOPED.has(model) ? rest.replace(/^\{([^}]*)\}/, '$1') : rest;
}

/** The list of the keys of every token issued under a grant. */
export function grantListKey(prefix: string, grantId: string): string {
  return grantScopedKey(prefix, 'grant', grantId);
}

/** The key of the DeviceCode id stored under its user code (normalized), for the pairing page. */
export function userCodeKey(prefix: string, userCode: string): string {
  return `${prefix}userCode:${userCode}`;
}

/** The account that entered device code `codeId` first. */
export function deviceClaimKey(prefix: string, codeId: string): string {
  return `${prefix}deviceClaim:${codeId}`;
}

/** The device code an account has entered and not yet decided. */
export function devicePendingKey(prefix: string, accountId: string): string {
  return `${prefix}devicePending:${accountId}`;
}

/** The key of the Session id stored under a session uid. */
export function sessionUidKey(prefix: string, uid: string): string {
  return `${prefix}sessionUid:${uid}`;
}

/** The prefix of the sets of a client's grant ids (`clientGrants:{`). */
export function clientGrantsPrefix(prefix: string): string {
  return `${prefix}clientGrants:{`;
}

/** The key of the set of a client's grant ids. */
export function clientGrantsKey(prefix: string, clientId: string): string {
  return `${clientGrantsPrefix(prefix)}${clientId}}`;
}

/** The client id of a {@link clientGrantsKey}. */
export function clientOfGrantsKey(prefix: string, key: string): string {
  return key.slice(clientGrantsPrefix(prefix).length, -1);
}

/**
 * The introspection limit's counter of one bucket (`client:<id>:ip:<address>`): this server's own fixed
 * window (introspection-count.ts), one key per script, in a slot of its own.
 */
export function introspectionCountKey(prefix: string, bucket: string): string {
  return `${prefix}rl:introspection:${bucket}`;
}

/** The hash of last-use times (client id → Unix seconds). */
export function usageKey(prefix: string): string {
  return `${prefix}clientUsedAt`;
}

/**
 * The claim to rotate (or answer for) a refresh token (storage/refresh-race.ts), in the slot of the
 * token's grant (the token id starts with the grant's tag): it fails over with the token it names.
 */
export function refreshClaimKey(prefix: string, tokenId: string): string {
  return grantScopedKey(prefix, 'refreshClaim', tokenId);
}

/**
 * The list holding the answer the claim's holder gave for a refresh token (storage/refresh-race.ts),
 * in the slot of the token's grant: it fails over with the tokens it names, never apart from them.
 */
export function refreshAnswersKey(prefix: string, tokenId: string): string {
  return grantScopedKey(prefix, 'refreshAnswers', tokenId);
}

/** The key of a grant's current refresh token and its last rotation's origin, in the grant's slot. */
export function refreshCurrentKey(prefix: string, grantId: string): string {
  return grantScopedKey(prefix, 'refreshCurrent', grantId);
}

/** The key of a grant's count of rotated refresh tokens answered within the window, in its slot. */
export function grantReuseKey(prefix: string, grantId: string): string {
  return grantScopedKey(prefix, 'grantReuse', grantId);
}

/** The prefix of the cache entries of Client ID Metadata Documents. */
export function cimdEntryPrefix(prefix: string): string {
  return `${prefix}cimd:`;
}

/** The cache entry of the Client ID Metadata Document at `url`. */
export function cimdEntryKey(prefix: string, url: string): string {
  return `${cimdEntryPrefix(prefix)}${url}`;
}

/** The hash of the school's app reviews (`client <id>` or `domain <host>` → the review, JSON). */
export function appReviewsKey(prefix: string): string {
  return `${prefix}appReviews`;
}

/** The hash of the pending review requests (client id → the request, JSON). */
export function appReviewRequestsKey(prefix: string): string {
  return `${prefix}appReviewRequests`;
}

/** The set of metadata-document client ids allowed https redirect URIs. */
export function cimdAllowedKey(prefix: string): string {
  return `${prefix}cimdAllowed`;
}

/** The hash of the egress ranges operators listed for hosted clients (client id → ranges). */
export function clientEgressKey(prefix: string): string {
  return `${prefix}clientEgress`;
}

/** The key of the client hash a metadata-document client's grant was consented for, in the grant's slot. */
export function cimdConsentKey(prefix: string, grantId: string): string {
  return grantScopedKey(prefix, 'cimdConsent', grantId);
}

/** The key of the set of an account's grant ids (a slot of its own: only single-key commands touch it). */
export function accountGrantsKey(prefix: string, accountId: string): string {
  return `${prefix}accountGrants:${accountId}`;
}

/** The key of the last use of each of a grant's scopes (a hash of Unix seconds), in the grant's slot. */
export function scopeUsageKey(prefix: string, grantId: string): string {
  return grantScopedKey(prefix, 'scopeUsedAt', grantId);
}

/** The key of a grant's last-use time (Unix seconds), in the grant's slot. */
export function grantUsageKey(prefix: string, grantId: string): string {
  return grantScopedKey(prefix, 'grantUsedAt', grantId);
}

/** The key of the sorted set of an account's login session ids. */
export function accountSessionsKey(prefix: string, accountId: string): string {
  return `${prefix}accountSessions:${accountId}`;
}

/** The key of the lock held while an account's role or state is changed (accounts/account-status.ts). */
export function accountRolesLockKey(prefix: string): string {
  return `${prefix}accountRolesLock`;
}
