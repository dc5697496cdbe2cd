/**
 * A refresh that names a `resource` it may not have is refused before the refresh token is touched.
 * oidc-provider's refresh_token grant rotates (consumes) the presented token first and resolves the
 * resource afterwards, so a refused resource used to burn the token: the client's retry then looked
 * like a replay, revoked the whole grant and was audited as theft. The same rules are checked here
 * first, as oidc-provider applies them (RFC 8707 §2.2): one resource, the API's identifier, and one
 * the refresh token was granted.
 *
 * oidc-provider has no hook before a grant, so its handler is wrapped where it keeps it
 * (oidc-internals.ts), as refresh-grace.ts does.
 */
import { errors, type KoaContextWithOIDC, type Provider } from 'oidc-provider';
import { grantHandlers } from './oidc-internals.js';

/** Wraps oidc-provider's refresh_token grant so a refused `resource` leaves the token as it was. */
export function checkRefreshResourceFirst(
  provider: Provider,
  isApiResource: (indicator: string) => boolean,
): void {
  const handlers = grantHandlers(provider);
  const original = handlers.get('refresh_token');
  if (!original) throw new Error('oidc-provider has no refresh_token grant to wrap');
  handlers.set('refresh_token', async function refreshWithResourceChecked(ctx: KoaContextWithOIDC) {
    const resource: unknown = ctx.oidc.params?.resource;
    if (resource !== undefined) {
      if (typeof resource !== 'string')
        throw new errors.InvalidTarget('only a single resource indicator may be requested');
      if (!isApiResource(resource)) throw new errors.InvalidTarget(`resource must be ${ctx.oidc.issuer}`);
      const value = (ctx.oidc.params?.refresh_token as string | undefined) ?? '';
      const token = value ? await provider.RefreshToken.find(value, { ignoreExpiration: true }) : undefined;
      if (token && token.clientId === ctx.oidc.client?.clientId && !token.resourceIndicators.has(resource))
        throw new errors.InvalidTarget('the resource was not granted to this refresh token');
    }
    return original(ctx);
  });
}
