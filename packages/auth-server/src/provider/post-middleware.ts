/**
 * Corrections oidc-provider has no option for, applied after its routes run:
 * - discovery lists exactly the contract's 38 scopes (its computed `scopes_supported` cannot be overridden
 *   through the `discovery` option), and may be cached for five minutes like the API's documents;
 * - registration errors use RFC 7591's codes: a malformed body or wrong content type is
 *   `invalid_client_metadata`, not `invalid_request`;
 * - a request to an endpoint that authenticates clients (token, introspection, revocation) with no
 *   client identification at all is 401 `invalid_client` (RFC 6749 §5.2: "no client authentication
 *   included"), where oidc-provider answers 400 `invalid_request`;
 * - revocation answers are never stored by a cache (`Cache-Control: no-store`), success and errors
 *   alike, as the token endpoint's are; oidc-provider sets it on its other client-authenticated routes;
 * - every `error_description` keeps to the characters RFC 6749 §5.2 allows (printable ASCII without
 *   `"` and `\`), since some descriptions quote client input.
 */
import type { Middleware } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { ALL_SCOPE_NAMES, PUBLIC_DOCUMENT_CACHE_CONTROL, rfc6749Text } from '@school/shared';

/** Routes that authenticate the client, and oidc-provider's text when no client is identified. */
const CLIENT_AUTH_ROUTES = new Set(['token', 'introspection', 'revocation']);
const NO_CLIENT_AUTH = 'no client authentication mechanism provided';

/** The post-middleware to `provider.use()`. */
export const providerCorrections: Middleware = async (ctx, next) => {
  await next();
  const route = (ctx as unknown as KoaContextWithOIDC).oidc?.route;
  if (route === 'revocation') ctx.set('Cache-Control', 'no-store');
  const body = ctx.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return;
  if (typeof body.error_description === 'string')
    body.error_description = rfc6749Text(body.error_description);
  if (route === 'discovery') {
    body.scopes_supported = [...ALL_SCOPE_NAMES];
    ctx.set('Cache-Control', PUBLIC_DOCUMENT_CACHE_CONTROL);
  } else if (route === 'registration' && ctx.status === 400 && body.error === 'invalid_request') {
    body.error = 'invalid_client_metadata';
  } else if (
    route &&
    CLIENT_AUTH_ROUTES.has(route) &&
    ctx.status === 400 &&
    body.error === 'invalid_request' &&
    body.error_description === NO_CLIENT_AUTH
  ) {
    ctx.status = 401;
    body.error = 'invalid_client';
  }
};
