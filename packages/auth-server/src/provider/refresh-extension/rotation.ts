/**
 * When oidc-provider rotates a refresh token (its `rotateRefreshToken` setting), and when the refresh
 * extension tells it not to.
 *
 * Public clients' refresh tokens rotate on every use, DPoP-bound or not: oidc-provider's default
 * stops rotating a sender-constrained one, but rotation stays the detector of a copied token when the
 * DPoP key was copied with it, and one rule is simpler for clients to follow. Confidential clients'
 * rotate as oidc-provider's default does (in the last 30 % of their life): they authenticate every
 * refresh. No chain rotates once a year old (oidc-provider's cap).
 *
 * The reuse window answers a rotated token with the grant's current refresh token and a fresh access
 * token: that request is marked with {@link answerWithoutRotation} and nothing rotates, so the grant
 * keeps one live refresh token. The mark is this module's own (a WeakSet of requests): it dies with
 * the request and nothing else reads it.
 */
import type { Client, KoaContextWithOIDC, RefreshToken } from 'oidc-provider';

const YEAR_SECONDS = 365.25 * 24 * 60 * 60;
const keeping = new WeakSet<object>();

/** Makes this request's refresh keep the refresh token it presents. */
export function answerWithoutRotation(ctx: object): void {
  keeping.add(ctx);
}

/** Whether a refresh of `token` by `client` rotates it (the rule at the top of this file). */
export function rotates(token: RefreshToken, client: Client): boolean {
  if (token.totalLifetime() >= YEAR_SECONDS) return false;
  if (client.clientAuthMethod === 'none') return true;
  return token.ttlPercentagePassed() >= 70;
}

/** oidc-provider's `rotateRefreshToken`. */
export function rotateRefreshToken(ctx: KoaContextWithOIDC): boolean {
  if (keeping.has(ctx)) return false;
  const { RefreshToken: token, Client: client } = ctx.oidc.entities;
  return !!token && !!client && rotates(token, client);
}
