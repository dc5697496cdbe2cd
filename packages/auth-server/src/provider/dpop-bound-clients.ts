/**
 * Clients that registered `dpop_bound_access_tokens: true` (RFC 9449 §5.2), through open registration
 * or in their Client ID Metadata Document, get no token without a DPoP proof. oidc-provider enforces
 * that at the code exchange and at refresh, before the code or refresh token is spent, but answers
 * `invalid_grant`; the grant is fine, the proof is what is missing, so the answer here is RFC 9449's
 * `invalid_dpop_proof` (docs/decisions.md), with a description saying what to send.
 */
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';

/** oidc-provider's detail when a client bound to DPoP sends no proof (its `checkDpopRequired`). */
const NO_PROOF = 'DPoP proof JWT not provided';

const DESCRIPTION =
  'this client registered dpop_bound_access_tokens: every token request needs a DPoP proof (RFC 9449) in the DPoP header';

/** Answers a bound client's token request without a proof with `invalid_dpop_proof`. */
export function refuseBoundClientsWithoutProof(provider: Provider): void {
  provider.on('grant.error', (ctx: KoaContextWithOIDC, err: { error?: string; error_detail?: string }) => {
    if (err.error !== 'invalid_grant' || err.error_detail !== NO_PROOF) return;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object') return;
    body.error = 'invalid_dpop_proof';
    body.error_description = DESCRIPTION;
  });
}
