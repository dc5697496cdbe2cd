/**
 * This service's own account pages (account-pages/) sign people in the way any app does: an
 * authorization request of a configured client, {@link ACCOUNT_CONSOLE_CLIENT_ID}, through the same
 * login page, so there is one login session (oidc-provider's) for apps and pages alike, and one
 * sign-out (`end_session_endpoint`). The pages then read that session; the code the request returns
 * is never redeemed (the client has no secret and the pages need no token), and expires.
 *
 * A person is not asked to consent to the pages themselves: it grants them
 * `openid` at once ({@link withAccountConsoleGrant}). Their grants are never listed as a connected app.
 */
import { ACCOUNT_PATH } from '@school/shared';
import type { ClientMetadata, Configuration, Grant, KoaContextWithOIDC } from 'oidc-provider';
import { ACCOUNT_CONSOLE_CLIENT_ID } from '../clients/client-kind.js';

/** Where the pages' sign-in returns to. */
export const ACCOUNT_SIGNED_IN_PATH = `${ACCOUNT_PATH}/signed-in`;

/** The pages' configured client (public, code flow, one redirect URI on this origin). */
export function accountConsoleClient(baseUrl: string): ClientMetadata {
  return {
    client_id: ACCOUNT_CONSOLE_CLIENT_ID,
    client_name: 'School account pages',
    application_type: 'web',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
    response_types: ['code'],
    redirect_uris: [`${baseUrl}${ACCOUNT_SIGNED_IN_PATH}`],
  };
}

/**
 * Wraps an oidc-provider `loadExistingGrant` (provider/cimd-consent.ts) so that the account pages, which
 * have no grant yet, get one of `openid` made on the spot (no consent page for this service's own pages).
 */
export function withAccountConsoleGrant(
  load: (ctx: KoaContextWithOIDC) => Promise<Grant | undefined>,
): NonNullable<Configuration['loadExistingGrant']> {
  return async function loadExistingOrConsoleGrant(ctx: KoaContextWithOIDC) {
    const existing = await load(ctx);
    const { client, session, account } = ctx.oidc;
    if (existing || !session || !account || client?.clientId !== ACCOUNT_CONSOLE_CLIENT_ID) return existing;
    const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: account.accountId });
    grant.addOIDCScope('openid');
    await grant.save();
    return grant;
  };
}
