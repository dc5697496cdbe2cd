/**
 * A refresh that names a `resource` it may not have is refused before the refresh token is touched.
 * oidc-provider's refresh_token grant rotates (consumes) the presented token first and resolves the
 * resource afterwards, so a refused resource would burn the token: the client's retry would then look
 * like a replay, revoke the whole grant and be audited as theft. The same rules are checked here
 * first, as oidc-provider applies them (RFC 8707 §2.2): one resource, the API's identifier, and one
 * the refresh token was granted.
 */
import { errors, type KoaContextWithOIDC, type RefreshToken } from 'oidc-provider';

/** The request's `resource`, checked for its shape (one, the API's identifier); or none. */
export function requestedResource(
  ctx: KoaContextWithOIDC,
  isApiResource: (indicator: string) => boolean,
): string | undefined {
  const resource: unknown = ctx.oidc.params?.resource;
  if (resource === undefined) return undefined;
  if (typeof resource !== 'string')
    throw new errors.InvalidTarget('only a single resource indicator may be requested');
  if (!isApiResource(resource)) throw new errors.InvalidTarget(`resource must be ${ctx.oidc.issuer}`);
  return resource;
}

/** Refuses `resource` when it was not granted to `token` (the client's own; others are refused later). */
export function checkResourceGranted(
  ctx: KoaContextWithOIDC,
  token: RefreshToken | undefined,
  resource: string | undefined,
): void {
  if (resource === undefined || !token || token.clientId !== ctx.oidc.client?.clientId) return;
  if (!token.resourceIndicators.has(resource))
    throw new errors.InvalidTarget('the resource was not granted to this refresh token');
}
