/**
 * A DPoP proof's `jti` is checked for replay, and recorded, before a grant touches anything.
 * oidc-provider's grant handlers check a proof's signature, method, URL and age first, but its `jti`
 * only when they bind the new tokens, after the authorization code (or the refresh token) was
 * consumed: a replayed proof sent with a code burned the code (`invalid_grant`), and the client's own
 * exchange with a fresh proof then failed as well. So every grant handler is wrapped: the request's
 * proof is checked (oidc-provider's own check, which it remembers for the request) and its `jti`
 * recorded for the client first; a proof seen before is `400 invalid_dpop_proof` and the code or
 * token is left as it was. The handler's own check of the same proof later in the same request then
 * finds it recorded by this very request and passes (storage/redis-adapter.ts, ReplayDetection).
 *
 * oidc-provider has no hook before a grant, so its handlers are wrapped where it keeps them
 * (oidc-internals.ts), as refresh-grace.ts does.
 */
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';
import { grantHandlers, recordDpopProof, requestDpopProof } from './oidc-internals.js';

/** Wraps every grant of `provider` so a replayed DPoP proof is refused before the grant runs. */
export function checkDpopReplayFirst(provider: Provider): void {
  const handlers = grantHandlers(provider);
  for (const [grantType, handler] of handlers) {
    handlers.set(grantType, async function grantWithProofCheckedFirst(ctx: KoaContextWithOIDC) {
      const proof = await requestDpopProof(provider, ctx);
      const clientId = ctx.oidc.client?.clientId;
      if (proof && clientId) await recordDpopProof(provider, ctx, proof, clientId);
      return handler(ctx);
    });
  }
}
