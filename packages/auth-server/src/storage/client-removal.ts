/**
 * Removing a client: its grants and every token issued under them end first, the client last
 *. Used by `school-auth clients delete` and by the lifecycle sweep.
 *
 * The order makes an interrupted removal safe to finish by running it again. Each step reads up to
 * {@link BATCH} grant ids of the client's grant set (`clientGrants:{<id>}`, redis-keys.ts), ends each
 * grant with one script in that grant's own slot (the grant, its token list and every token listed:
 * access and refresh tokens, unredeemed codes), and only then removes those ids from the set; once
 * a script finds the set empty and deletes it, the client itself and its last-use time go. Each
 * script touches one hash slot, so this runs unchanged on a Redis Cluster. Stopped anywhere, the
 * client is still stored with the grants not yet ended still indexed (ending a grant twice is a
 * no-op), so running the removal again (the operator repeating the command, or the next sweep for
 * a self-registered client) carries on where it stopped. A grant
 * written by an authorization racing the removal, after its last step, names a client that is gone:
 * its tokens read as nothing (the adapter checks the client on every read), and the sweep ends it as
 * an orphan.
 *
 * The ended access tokens are published on the revocation channel after each step, so a resource
 * server caching introspection answers drops them at once (else within its INTROSPECTION_CACHE_TTL).
 *
 * Login sessions keep a per-client entry (`authorizations[clientId]`, with a grant id) that is not
 * rewritten: it names a grant that no longer exists, which oidc-provider treats as no grant, and
 * it expires with the session.
 */
import type { RedisClient } from '@school/shared';
import type { Adapter, Provider } from 'oidc-provider';
import type { AuditEvent, AuditLog } from '../audit/audit-log.js';
import { clientGrantsKey, grantListKey, modelKey, usageKey } from './redis-keys.js';
import { withScripts } from './redis-scripts.js';
import { publishRevoked } from './revocations.js';
import { readStoredClient, UNREADABLE } from './client-listing.js';

/** Grants ended per script call: bounds how long one call holds Redis. */
const BATCH = 100;

/** Where clients are stored, and who hears of a removal. */
export interface ClientStore {
  redis: RedisClient;
  /** REDIS_KEY_PREFIX. */
  prefix: string;
  /** Its Client model's adapter is told too, so this process forgets the client at once. */
  provider: Provider;
  /** Records a `client_deleted` event when given. */
  audit?: AuditLog;
}

/** Why a client is removed (`admin`: an admin deleted it on All clients). */
export type RemovalReason = 'operator' | 'admin' | 'unused' | 'idle' | 'orphaned';

/** Who removed it, for the audit event (the admin on All clients, their request and address). */
export type RemovedBy = Pick<AuditEvent, 'requestId' | 'ip' | 'accountId'>;

/** What a removal did. */
export interface Removal {
  clientId: string;
  /** Whether the client was still stored (false: only left-overs of an earlier removal were ended). */
  existed: boolean;
  /** Grants ended (each with all of its tokens). */
  grants: number;
  /** Tokens and codes ended. */
  tokens: number;
}

/** The Client model's storage (public at runtime, missing from the type declarations). */
const clientStorage = (provider: Provider) => (provider.Client as unknown as { adapter: Adapter }).adapter;

/** What ending a client's grants did. */
export interface EndedGrants {
  grants: number;
  tokens: number;
}

/**
 * Ends every grant of `clientId` for every account, with all of their tokens, batch by batch (see the
 * module comment), publishing the ended access tokens; the client itself stays. Also what blocking an
 * app does (storage/app-reviews.ts). Safe to run again after an interruption.
 */
export async function endClientGrants(
  redis: RedisClient,
  prefix: string,
  clientId: string,
): Promise<EndedGrants> {
  const r = withScripts(redis);
  const ended: EndedGrants = { grants: 0, tokens: 0 };
  const index = clientGrantsKey(prefix, clientId);
  for (;;) {
    const ids = await r.srandmember(index, BATCH);
    for (const grantId of ids) {
      const keys = await r.oidcRevokeGrant(grantListKey(prefix, grantId), modelKey(prefix, 'Grant', grantId));
      ended.tokens += keys.length;
      await publishRevoked(r, prefix, keys);
    }
    if (ids.length) await r.srem(index, ...ids);
    ended.grants += ids.length;
    if ((await r.oidcDropEmptyIndex(index)) === 1) return ended;
  }
}

/**
 * Ends every grant and token of `clientId`, then removes the client (see the module comment). The
 * `client_deleted` event names the client as it was stored (`details.client_name`) and `by`.
 */
export async function removeClient(
  store: ClientStore,
  clientId: string,
  reason: RemovalReason,
  by: RemovedBy = {},
): Promise<Removal> {
  const r = withScripts(store.redis);
  const { prefix } = store;
  const clientKey = modelKey(prefix, 'Client', clientId);
  const stored = await r.get(clientKey);
  const existed = stored !== null;
  const record = stored ? readStoredClient(stored) : UNREADABLE; // a corrupt record is removed all the same
  const name = record === UNREADABLE ? undefined : record.client_name;
  const removal: Removal = { clientId, existed, ...(await endClientGrants(r, prefix, clientId)) };
  await r.del(clientKey);
  await r.hdel(usageKey(prefix), clientId);
  await clientStorage(store.provider).destroy(clientId); // evicts this process's cached copy
  if (existed || removal.grants > 0) {
    void store.audit?.record('client_deleted', {
      ...by,
      clientId,
      details: { reason, client_name: name, grants: removal.grants, tokens: removal.tokens },
    });
  }
  return removal;
}
