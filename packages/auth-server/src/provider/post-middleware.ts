/**
 * Corrections oidc-provider has no option for, applied after its routes run:
 * - discovery lists exactly SPEC.md's 38 scopes (its computed `scopes_supported` cannot be overridden
 *   through the `discovery` option);
 * - registration errors use RFC 7591's codes: a malformed body or wrong content type is
 *   `invalid_client_metadata`, not `invalid_request`;
 * - a request to an endpoint that authenticates clients (token, introspection, revocation) with no
 *   client identification at all is 401 `invalid_client` (RFC 6749 §5.2: "no client authentication
 *   included"), where oidc-provider answers 400 `invalid_request`.
 */
import type { Middleware } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { ALL_SCOPE_NAMES } from '@school/shared';

/** Routes that authenticate the client, and oidc-provider's text when no client is identified. */
const CLIENT_AUTH_ROUTES = new Set(['token', 'introspection', 'revocation']);
const NO_CLIENT_AUTH = 'no client authentication mechanism provided';

/** The post-middleware to `provider.use()`. */
export const providerCorrections: Middleware = async (ctx, next) => {
  await next();
  const route = (ctx as unknown as KoaContextWithOIDC).oidc?.route;
  const body = ctx.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return;
  if (route === 'discovery') {
    body.scopes_supported = [...ALL_SCOPE_NAMES];
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
