/**
 * The existing grant an authorization request may use is this client's and this account's, or none.
 *
 * oidc-provider's authorization pipeline takes the grant `loadExistingGrant` returns (by default the
 * one the session names for the client) and throws a plain `Error` when it names another client or
 * account: a 500 on the authorization endpoint. Such a grant exists only when storage was written
 * behind the server's back, since every grant this server saves is made for the request's client and
 * account. Treated as no grant instead, the request goes on as a first one: the user is asked to
 * consent again, and the consent makes a grant of the right client and account (the stray one is
 * neither used nor changed).
 */
import type { Grant, KoaContextWithOIDC } from 'oidc-provider';

/** Wraps a `loadExistingGrant` so that it never hands over a grant of another client or account. */
export function onlyOwnGrant(
  load: (ctx: KoaContextWithOIDC) => Promise<Grant | undefined>,
): (ctx: KoaContextWithOIDC) => Promise<Grant | undefined> {
  return async function loadOwnGrant(ctx) {
    const grant = await load(ctx);
    if (!grant) return undefined;
    const { client, account } = ctx.oidc;
    return grant.clientId === client?.clientId && grant.accountId === account?.accountId ? grant : undefined;
  };
}
