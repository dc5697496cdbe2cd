/**
 * What an account already allowed an app, carried into a new sign-in.
 *
 * oidc-provider finds an existing grant through the login session alone (`session.grantIdFor`), so a
 * person who signs in again (another browser, or after the session ended) and is asked by the same
 * app for one more scope would be shown every scope again. Step-up authorization (docs/decisions.md)
 * needs the page to list only what is new. So when the session names no grant for the client, the
 * newest grant in the account's grant index (storage/account-grants.ts) for this client whose
 * metadata document is unchanged (provider/cimd-consent.ts), if any, is copied into a new grant for this session
 * (with its end and the scopes refused in it, so the consent page keeps both):
 * the consent adds to the copy, and the tokens of this sign-in hang off it.
 *
 * A copy rather than the grant itself, so that sign-ins stay apart as before: revoking a token, or
 * the reuse of a rotated refresh token, ends one sign-in's grant and never another's. The copy holds
 * nothing the account had not allowed; Connected apps ends every grant of the app at once.
 *
 * This never skips the consent page for an app on this computer: oidc-provider asks a native client
 * for consent on every authorization (RFC 8252 §8.6), whatever the grant holds.
 */
import type { RedisClient } from '@school/shared';
import type { Grant, KoaContextWithOIDC } from 'oidc-provider';
import { tieToDocument, tiedToCurrentDocument, type CimdConsentStore } from './cimd-consent.js';
import { accountGrants } from '../storage/account-grants.js';
import { copyRefusals } from './grant-scopes.js';
import { StorageUnavailable } from './storage-outage.js';

/** Where the account's grant index lives. */
export interface GrantIndex {
  redis: RedisClient;
  prefix: string;
}

type LoadGrant = (ctx: KoaContextWithOIDC) => Promise<Grant | undefined>;

/**
 * The ids of the grants `accountId` holds for `clientId`, newest first (grants of one second, the
 * resolution of `iat`, by how much they hold).
 */
async function heldGrantIds(
  { redis, prefix }: GrantIndex,
  accountId: string,
  clientId: string,
): Promise<string[]> {
  const held = await accountGrants(redis, prefix, accountId).catch((err: unknown) => {
    throw new StorageUnavailable(err); // Redis unreachable: 503, not 500
  });
  return held
    .filter((g) => g.clientId === clientId)
    .sort((a, b) => b.issuedAt - a.issuedAt || b.scopes.length - a.scopes.length)
    .map((g) => g.grantId);
}

/** A new grant of `held`'s account and client, holding everything `held` holds. */
function copyOf(ctx: KoaContextWithOIDC, held: Grant): Grant {
  const grant = new ctx.oidc.provider.Grant({ accountId: held.accountId, clientId: held.clientId });
  grant.exp = held.exp; // the access the admin chose ends when it ends, copied or not
  const scope = held.getOIDCScope();
  if (scope) grant.addOIDCScope(scope);
  const claims = held.getOIDCClaims();
  if (claims.length) grant.addOIDCClaims(claims);
  for (const [indicator, resourceScope] of Object.entries(held.resources ?? {})) {
    if (resourceScope) grant.addResourceScope(indicator, resourceScope);
  }
  copyRefusals(held, grant); // what the admin refused stays marked as refused on the next consent page
  return grant;
}

/**
 * Wraps a `loadExistingGrant` (provider/cimd-consent.ts): when it finds none and the session names no
 * grant for the client, returns a saved copy of the account's newest grant for this client (see the
 * module comment), or none.
 */
export function withHeldGrant(
  index: GrantIndex,
  cimdConsents: CimdConsentStore | undefined,
  load: LoadGrant,
): LoadGrant {
  return async function loadOrCarryOver(ctx) {
    const existing = await load(ctx);
    const { client, account, session } = ctx.oidc;
    if (existing || !client || !account || !session || session.grantIdFor(client.clientId)) return existing;
    // The newest held grant still tied to the client's current metadata document (any, for others).
    let held: Grant | undefined;
    for (const heldId of await heldGrantIds(index, account.accountId, client.clientId)) {
      const candidate = await ctx.oidc.provider.Grant.find(heldId);
      if (!candidate || candidate.accountId !== account.accountId || candidate.clientId !== client.clientId)
        continue;
      if (!(await tiedToCurrentDocument(cimdConsents, heldId, client))) continue;
      held = candidate;
      break;
    }
    if (!held) return undefined;
    const grant = copyOf(ctx, held);
    const grantId = await grant.save();
    await tieToDocument(cimdConsents, grantId, client);
    return grant;
  };
}
