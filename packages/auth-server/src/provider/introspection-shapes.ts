/**
 * Introspection answers `{"active":false}` for any token it cannot introspect, whatever its shape.
 *
 * oidc-provider refuses a JWT-shaped token (an ID token, another issuer's JWT, anything whose first
 * segment decodes as a JOSE header) with 400 `unsupported_token_type` (lib/shared/
 * reject_structured_tokens.js). RFC 7662 §2.2 asks for `active: false` for a token that is not
 * active "or otherwise invalid", without revealing why; and a resource server that reads a 400 as the
 * auth server failing tells its caller to retry forever. The refusal comes
 * after client authentication in oidc-provider's chain, so only an authenticated client ever sees the
 * rewritten answer; an unauthenticated one still gets `invalid_client`.
 */
import type { Middleware } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';

/** The post-middleware to `provider.use()`. */
export const inactiveForUnsupportedTokens: Middleware = async (ctx, next) => {
  await next();
  if ((ctx as unknown as KoaContextWithOIDC).oidc?.route !== 'introspection' || ctx.status !== 400) return;
  const body = ctx.body as { error?: unknown } | undefined;
  if (body?.error !== 'unsupported_token_type') return;
  ctx.status = 200;
  ctx.body = { active: false };
};
