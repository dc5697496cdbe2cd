/**
 * The resource API's note that it served an operation needing a scope: an introspection request with
 * one extra parameter, `used_scope` (RFC 7662 §2.1 lets a protected resource send more than `token`).
 * When the answer is `active: true`, the asker may introspect every token (the API's static client or
 * an operator's introspecting service: an app cannot claim use of its own tokens) and the token
 * carries that scope, its use is recorded under the token's grant (storage/scope-usage.ts) for
 * Connected apps. The answer itself is the ordinary one; recording never delays or fails it.
 *
 * The direct introspection step (direct-introspection.ts) takes only the four standard parameters, so
 * these requests, at most one a minute per app, account and scope, go through oidc-provider.
 */
import type { RedisClient } from '@school/shared';
import type { Middleware } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { recordScopeUse } from '../storage/scope-usage.js';
import { mayIntrospectEveryToken } from '../clients/client-kind.js';

/** The extra introspection parameter naming the scope the API checked. */
export const USED_SCOPE_PARAMETER = 'used_scope';

/** A post-middleware to `provider.use()` recording scope uses the API reports (see the module comment). */
export function scopeUseFromIntrospection(opts: {
  redis: RedisClient;
  prefix: string;
  grantTtlSeconds: number;
  introspectionClientId: string;
}): Middleware {
  return async function recordReportedUse(ctx, next) {
    await next();
    const oidc = (ctx as unknown as KoaContextWithOIDC).oidc;
    if (oidc?.route !== 'introspection' || ctx.status !== 200) return;
    const scope = oidc.body?.[USED_SCOPE_PARAMETER];
    const token = oidc.entities.AccessToken;
    const asker = oidc.client;
    if (typeof scope !== 'string' || !token?.grantId || !asker) return;
    if (
      !mayIntrospectEveryToken(asker, opts.introspectionClientId) ||
      (ctx.body as { active?: unknown }).active !== true
    )
      return;
    if (!token.scope?.split(' ').includes(scope)) return;
    void recordScopeUse(opts.redis, opts.prefix, {
      grantId: token.grantId,
      scope,
      grantTtlSeconds: opts.grantTtlSeconds,
    }).catch(() => undefined); // a lost note only makes "last used" older
  };
}
