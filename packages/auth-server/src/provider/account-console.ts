/**
 * This service's own account pages (account-pages/) sign people in the way any app does: an
 * authorization request of a configured client, {@link ACCOUNT_CONSOLE_CLIENT_ID}, through the same
 * login page, so there is one login session (oidc-provider's) for apps and pages alike, and one
 * sign-out (`end_session_endpoint`). The pages then read that session; the code the request returns
 * is never redeemed (the client has no secret and the pages need no token), and expires.
 *
 * A person is not asked to consent to the pages themselves: {@link loadExistingGrant} grants them
 * `openid` at once. Their grants are never listed as a connected app.
 */
import { ACCOUNT_PATH } from '@school/shared';
import type { ClientMetadata, Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { ACCOUNT_CONSOLE_CLIENT_ID } from './client-kind.js';

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
 * oidc-provider's `loadExistingGrant`, as its default, plus a grant of `openid` made on the spot for
 * the account pages (no consent page for this service's own pages).
 */
export const loadExistingGrant: NonNullable<Configuration['loadExistingGrant']> = async (
  ctx: KoaContextWithOIDC,
) => {
  const { client, session, result, account } = ctx.oidc;
  if (!client || !session) return undefined;
  const grantId =
    (result?.consent as { grantId?: string } | undefined)?.grantId ?? session.grantIdFor(client.clientId);
  if (grantId) return ctx.oidc.provider.Grant.find(grantId);
  if (client.clientId !== ACCOUNT_CONSOLE_CLIENT_ID || !account) return undefined;
  const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: account.accountId });
  grant.addOIDCScope('openid');
  await grant.save();
  return grant;
};
