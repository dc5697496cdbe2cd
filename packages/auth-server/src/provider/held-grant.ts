/**
 * The grant an account already holds for a client, wherever it was given.
 *
 * oidc-provider finds an existing grant through the login session alone (`session.grantIdFor`), so a
 * person who signs in again (another browser, or after the session ended) and is asked by the same
 * app for one more scope would be shown every scope again, and the consent would make a second grant
 * beside the first. Step-up authorization (docs/decisions.md) needs the opposite: the consent adds to
 * what the account already allowed this app, and the page lists only what is new. So when the session
 * names no grant for the client, the newest grant in the account's grant index (storage/
 * account-grants.ts) for this client is used.
 *
 * Using it never skips the consent page for an app on this computer: oidc-provider asks a native
 * client for consent on every authorization (RFC 8252 §8.6), whatever the grant holds.
 */
import type { RedisClient } from '@school/shared';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { accountGrants } from '../storage/account-grants.js';
import { StorageUnavailable } from './storage-outage.js';

/** Where the account's grant index lives. */
export interface GrantIndex {
  redis: RedisClient;
  prefix: string;
}

/** The id of the newest grant the request's account holds for the request's client, if any. */
export function heldGrantId({ redis, prefix }: GrantIndex) {
  return async function heldGrantId(ctx: KoaContextWithOIDC): Promise<string | undefined> {
    const accountId = ctx.oidc.account?.accountId;
    const clientId = ctx.oidc.client?.clientId;
    if (!accountId || !clientId) return undefined;
    const held = await accountGrants(redis, prefix, accountId).catch((err: unknown) => {
      throw new StorageUnavailable(err); // Redis unreachable: 503, not 500
    });
    const forClient = held.filter((g) => g.clientId === clientId).sort((a, b) => b.issuedAt - a.issuedAt);
    return forClient[0]?.grantId;
  };
}
