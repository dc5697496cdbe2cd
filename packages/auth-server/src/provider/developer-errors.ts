/**
 * Error descriptions a client developer can act on. oidc-provider answers most token-endpoint
 * failures with `invalid_grant` "grant request is invalid" and keeps the reason in the error's
 * detail, and userinfo refuses an API-bound token as "missing openid scope". The RFC 6749 codes stay
 * as they are; only `error_description` says what to fix. Nothing here tells a caller more than the
 * RFCs already imply: an authorization code or refresh token that is unknown, expired, already used
 * or issued to another client gets one description, so none of them says whether it ever existed.
 */
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';

/** An oidc-provider error as its events hand it over. */
interface ProviderError {
  error?: string;
  error_description?: string;
  error_detail?: string;
}

const CODE_UNUSABLE =
  'the authorization code is invalid, expired, already used or was issued to another client: start a new authorization';
const REFRESH_UNUSABLE =
  'the refresh token is invalid, expired or revoked, or was issued to another client: start a new authorization';

/** The description for an `invalid_grant` by its detail and grant type, or undefined to keep it. */
function grantDescription(detail: string, grantType: string | undefined): string | undefined {
  if (detail === 'code_verifier does not match code_challenge')
    return 'PKCE verification failed: code_verifier does not match the code_challenge of the authorization request';
  if (detail === 'code_verifier must be provided') return 'code_verifier is required (PKCE, S256)';
  if (detail === 'authorization code redirect_uri mismatch')
    return 'redirect_uri must be exactly the one sent with the authorization request, port included';
  if (detail === 'refresh token already used')
    return 'the refresh token was already used (refresh tokens rotate): the grant is revoked, start a new authorization';
  if (/^(grant not found|grant is expired)$/.test(detail))
    return 'the authorization behind this code or token was revoked or has expired: start a new authorization';
  if (/not found|already consumed|is expired|client mismatch/.test(detail))
    return grantType === 'refresh_token' ? REFRESH_UNUSABLE : CODE_UNUSABLE;
  return undefined;
}

/** Replaces the description in the answer's body and in its `WWW-Authenticate` challenge. */
function describe(ctx: KoaContextWithOIDC, from: string | undefined, to: string): void {
  const body = ctx.body as ProviderError | undefined;
  if (body && typeof body === 'object') body.error_description = to;
  const challenge = ctx.response.get('WWW-Authenticate');
  if (challenge && from)
    ctx.set(
      'WWW-Authenticate',
      challenge.replace(`error_description="${from}"`, `error_description="${to}"`),
    );
}

/** Rewrites oidc-provider's descriptions on the token and userinfo endpoints (see the module comment). */
export function explainErrorsToDevelopers(provider: Provider): void {
  provider.on('grant.error', (ctx: KoaContextWithOIDC, err: ProviderError) => {
    if (err.error !== 'invalid_grant' || !err.error_detail) return;
    const grantType = ctx.oidc.params?.grant_type as string | undefined;
    const to = grantDescription(err.error_detail, grantType);
    if (to) describe(ctx, err.error_description, to);
  });
  provider.on('userinfo.error', (ctx: KoaContextWithOIDC, err: ProviderError) => {
    if (err.error !== 'insufficient_scope') return;
    const bound = ctx.oidc.entities.AccessToken?.aud !== undefined;
    describe(
      ctx,
      err.error_description,
      bound
        ? 'this access token is bound to the API (it was requested with resource): for userinfo, request a token without resource, with the openid scope'
        : 'this access token lacks the openid scope: request openid to use userinfo',
    );
  });
}
