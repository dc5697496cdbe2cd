/**
 * Corrections oidc-provider has no option for, applied after its routes run:
 * - discovery lists exactly SPEC.md's 38 scopes (its computed `scopes_supported` cannot be overridden
 *   through the `discovery` option);
 * - registration errors use RFC 7591's codes: a malformed body or wrong content type is
 *   `invalid_client_metadata`, not `invalid_request`.
 */
import type { Middleware } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { ALL_SCOPE_NAMES } from '@school/shared';

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
  }
};
