/**
 * A rotated refresh token met at the token endpoint, as the reuse window (provider/refresh-grace.ts)
 * needs to see it.
 *
 * oidc-provider's refresh_token grant revokes the grant as soon as its read of the presented token
 * says "consumed". The window decides first whether a rotated token comes from the same installation
 * (then it is answered) or not (then the grant ends), so on the token endpoint it marks the token id
 * it hands oidc-provider, and the adapter's read of a marked token that is consumed throws
 * {@link RotatedRefresh} instead of returning it. That read is the grant's first step after the DPoP
 * proof's signature check, so nothing has been written or recorded when it throws. Every other read
 * (introspection, revocation, a request that marked nothing) sees the token as consumed, i.e. not
 * active.
 *
 * The mark is a symbol-keyed property of the request's Koa context, so it dies with the request.
 */
import { errors, type AdapterPayload } from 'oidc-provider';

const WATCHED = Symbol('watched-refresh-token');
type Holder = { [WATCHED]?: string };

/** Marks `tokenId` as the refresh token this request presents to oidc-provider. */
export function watchRotation(ctx: object, tokenId: string): void {
  (ctx as Holder)[WATCHED] = tokenId;
}

/** Whether this request marked `tokenId` (see the top of this file). */
export function watchedRotation(ctx: object | undefined, tokenId: unknown): boolean {
  return ctx !== undefined && (ctx as Holder)[WATCHED] === tokenId;
}

/** A marked refresh token found consumed: the reuse window decides what it means. */
export class RotatedRefresh extends errors.InvalidGrant {
  constructor(
    /** The stored token (`jti`, `clientId`, `grantId`, `jkt` when DPoP-bound). */
    readonly token: AdapterPayload,
    /** When it was rotated, Unix seconds. */
    readonly consumedAt: number,
  ) {
    super('refresh token already used');
  }
}
