/**
 * A DPoP proof's `jti` is checked for replay, and recorded, before a grant touches anything.
 * oidc-provider's grant handlers check a proof's signature, method, URL and age first, but its `jti`
 * only when they bind the new tokens, after the authorization code (or the refresh token) was
 * consumed: a replayed proof sent with a code burned the code (`invalid_grant`), and the client's own
 * exchange with a fresh proof then failed as well. So every grant handler is wrapped: the request's
 * proof (dpop-proof.ts) has its `jti` recorded for the client first, through oidc-provider's own
 * ReplayDetection model and with its window, as oidc-provider records it; a proof seen before is
 * `400 invalid_dpop_proof` and the code or token is left as it was. The handler's own check of the
 * same proof later in the same request then finds it recorded by this very request and passes
 * (storage/redis-adapter.ts, ReplayDetection).
 *
 * oidc-provider has no hook before a grant, so its handlers are wrapped where it keeps them
 * (oidc-internals.ts). This wrapper is installed after the refresh extension (refresh-extension/), so
 * it is the outermost: a replayed proof gets no answer from the extension's reuse window either.
 */
import { errors, type KoaContextWithOIDC, type Provider } from 'oidc-provider';
import { readDpopProof } from './dpop-proof.js';
import { grantHandlers } from './oidc-internals.js';

/** How long a proof's `jti` is remembered, seconds: oidc-provider's own window for proofs. */
const PROOF_WINDOW_SECONDS = 300;

/** Wraps every grant of `provider` so a replayed DPoP proof is refused before the grant runs. */
export function checkDpopReplayFirst(provider: Provider): void {
  const handlers = grantHandlers(provider);
  for (const [grantType, handler] of handlers) {
    handlers.set(grantType, async function grantWithProofCheckedFirst(ctx: KoaContextWithOIDC) {
      const proof = await readDpopProof(ctx);
      const clientId = ctx.oidc.client?.clientId;
      if (proof && clientId) {
        const expires = Math.floor(Date.now() / 1000) + PROOF_WINDOW_SECONDS;
        if (!(await provider.ReplayDetection.unique(clientId, proof.jti, expires)))
          throw new errors.InvalidDpopProof('DPoP proof JWT Replay detected');
      }
      return handler(ctx);
    });
  }
}
