/**
 * Client authentication exactly as the metadata says. oidc-provider treats
 * `client_secret_basic` and `client_secret_post` as one (a `client_secret_post` client passes with
 * HTTP Basic), drops `client_assertion` parameters it was not configured for without a word, and
 * authenticates introspection by the client's token-endpoint method (so a public client introspected
 * with its client id alone). This step, before oidc-provider, refuses what the discovery metadata
 * does not list:
 *
 * - an `Authorization` header at the token, introspection or revocation endpoint: no method this
 *   server supports uses it (`token_endpoint_auth_methods_supported` is `none` and
 *   `client_secret_post`);
 * - `client_assertion` or `client_assertion_type`: JWT client authentication is not supported;
 * - introspection without `client_secret`: `introspection_endpoint_auth_methods_supported` is
 *   `client_secret_post` alone.
 *
 * Each is `401 invalid_client` (RFC 6749 §5.2: an unsupported authentication method); a refused
 * `Authorization` header gets the `WWW-Authenticate` challenge of the scheme it used, as §5.2
 * requires. The endpoint table's `clientAuthentication` says which endpoints take which. Each
 * refusal of a request naming a client is counted against the sender's address like a made-up
 * client id (unidentified-client-limit.ts), and answered `429` once that is over its limit. The
 * rest (the right secret for the client, the client's registered method among the two) is
 * oidc-provider's.
 */
import { InvalidClientError, TooManyRequestsError, type ClientAuthentication } from '@school/shared';
import type { Context, Middleware } from 'koa';
import { countedAtAddress } from './rate-limit.js';
import { requestForm } from './request-form.js';
import type { UnidentifiedClientCount } from './unidentified-client-limit.js';

/** The step refusing client authentication the metadata does not list for an endpoint. */
export function strictClientAuthentication(
  accepted: ClientAuthentication,
  realm: string,
  count: UnidentifiedClientCount,
): Middleware {
  /**
   * Counts the refusal against the address, unless the request names no client or no client that
   * exists (the rate limiter counted it in that bucket already); a `429` instead once the address is
   * over its limit.
   */
  const counted = async (ctx: Context) => {
    const form = await requestForm(ctx);
    if (typeof form === 'string' || !form.get('client_id') || countedAtAddress(ctx.req)) return;
    const retryAfter = await count(ctx.ip);
    if (retryAfter !== undefined)
      throw new TooManyRequestsError(`rate limit exceeded; retry after ${retryAfter} s`, retryAfter);
  };
  return async function refuseUnlistedClientAuthentication(ctx, next) {
    if (ctx.method !== 'POST') {
      await next();
      return;
    }
    const authorization = ctx.get('authorization');
    if (authorization) {
      await counted(ctx);
      const scheme = /^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*/.exec(authorization)?.[0] ?? 'Basic';
      throw new InvalidClientError(
        'client authentication in the Authorization header is not supported; send client_secret in the body',
        { 'WWW-Authenticate': `${scheme} realm="${realm}", error="invalid_client"` },
      );
    }
    // Not a form: oidc-provider answers (400); a body over the cap was refused before (body-cap.ts).
    const form = await requestForm(ctx);
    if (typeof form === 'string') {
      await next();
      return;
    }
    if (form.has('client_assertion') || form.has('client_assertion_type')) {
      await counted(ctx);
      throw new InvalidClientError('JWT client authentication (client_assertion) is not supported');
    }
    if (accepted === 'client_secret_post' && !form.get('client_secret')) {
      await counted(ctx);
      throw new InvalidClientError('introspection requires client_secret_post authentication');
    }
    await next();
    return;
  };
}
