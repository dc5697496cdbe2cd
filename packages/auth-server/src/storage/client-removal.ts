/**
 * Removing a client: its grants and every token issued under them end first, the client last
 * (issue 13, finding 13). Used by `school-auth clients delete` and by the lifecycle sweep.
 *
 * The order makes an interrupted removal safe to finish by running it again. Each step is one Redis
 * script that atomically takes up to {@link BATCH} grant ids out of the client's grant set
 * (`clientGrants:<id>`, redis-keys.ts) and deletes each grant with every token listed under it
 * (access and refresh tokens, unredeemed codes) and its token list; only the step that finds the set
 * empty deletes the client itself and its last-use time. Stopped anywhere, the client is still
 * stored with the grants not yet ended, so running the removal again (the operator repeating the
 * command, or the next sweep for a self-registered client) carries on where it stopped. A grant
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
import type { Redis } from 'ioredis';
import type { Adapter, Provider } from 'oidc-provider';
import type { AuditLog } from '../audit/audit-log.js';
import { clientGrantsKey, grantListPrefix, modelKey, modelPrefix, usageKey } from './redis-keys.js';
import { withScripts } from './redis-scripts.js';
import { publishRevoked } from './revocations.js';

/** Grants ended per script call: bounds how long one call holds Redis. */
const BATCH = 100;

/** Where clients are stored, and who hears of a removal. */
export interface ClientStore {
  redis: Redis;
  /** REDIS_KEY_PREFIX. */
  prefix: string;
  /** Its Client model's adapter is told too, so this process forgets the client at once. */
  provider: Provider;
  /** Records a `client_deleted` event when given. */
  audit?: AuditLog;
}

/** Why a client is removed. */
export type RemovalReason = 'operator' | 'unused' | 'idle' | 'orphaned';

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

/** Ends every grant and token of `clientId`, then removes the client (see the module comment). */
export async function removeClient(
  store: ClientStore,
  clientId: string,
  reason: RemovalReason,
): Promise<Removal> {
  const r = withScripts(store.redis);
  const { prefix } = store;
  const clientKey = modelKey(prefix, 'Client', clientId);
  const existed = (await r.exists(clientKey)) === 1;
  const removal: Removal = { clientId, existed, grants: 0, tokens: 0 };
  for (;;) {
    const [done, grants, ended] = await r.oidcEndClient(
      clientGrantsKey(prefix, clientId),
      clientKey,
      usageKey(prefix),
      BATCH,
      modelPrefix(prefix, 'Grant'),
      grantListPrefix(prefix),
      clientId,
    );
    removal.grants += grants;
    removal.tokens += ended.length;
    await publishRevoked(r, prefix, ended);
    if (done === 1) break;
  }
  await clientStorage(store.provider).destroy(clientId); // evicts this process's cached copy
  if (existed || removal.grants > 0) {
    void store.audit?.record('client_deleted', {
      clientId,
      details: { reason, grants: removal.grants, tokens: removal.tokens },
    });
  }
  return removal;
}
