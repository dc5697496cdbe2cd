/**
 * When oidc-provider rotates a refresh token (`rotateRefreshToken`).
 *
 * Public clients' refresh tokens rotate on every use, DPoP-bound or not: oidc-provider's default
 * stops rotating a sender-constrained one, but rotation stays the detector of a copied token when the
 * DPoP key was copied with it, and one rule is simpler for clients to follow. Confidential clients'
 * rotate as oidc-provider's default does (in the last 30 % of their life): they authenticate every
 * refresh. No chain rotates once a year old (oidc-provider's cap).
 *
 * The reuse window (refresh-grace.ts) answers a rotated token with the grant's current refresh token
 * and a fresh access token: that request marks itself with {@link answerWithoutRotation} and nothing
 * rotates, so the grant keeps one live refresh token.
 */
import type { KoaContextWithOIDC } from 'oidc-provider';

const KEEP = Symbol('answer-without-rotation');
type Holder = { [KEEP]?: true };

const YEAR_SECONDS = 365.25 * 24 * 60 * 60;

/** Makes this request's refresh keep the refresh token it presents. */
export function answerWithoutRotation(ctx: object): void {
  (ctx as Holder)[KEEP] = true;
}

/** oidc-provider's `rotateRefreshToken`. */
export function rotateRefreshToken(ctx: KoaContextWithOIDC): boolean {
  if ((ctx as unknown as Holder)[KEEP]) return false;
  const { RefreshToken: token, Client: client } = ctx.oidc.entities;
  if (!token || !client) return false;
  if (token.totalLifetime() >= YEAR_SECONDS) return false;
  if (client.clientAuthMethod === 'none') return true;
  return token.ttlPercentagePassed() >= 70;
}
