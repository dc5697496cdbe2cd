/**
 * DPoP (RFC 9449) as both services apply it: the auth server binds tokens to a proof's key at the
 * token endpoint, the resource API checks a proof with every call of a bound token. Both accept the
 * same signature algorithms and the same clock window for a proof's `iat`.
 */

/** The proof signature algorithms accepted (`dpop_signing_alg_values_supported`): asymmetric only. */
export const DPOP_SIGNING_ALGS = ['ES256', 'Ed25519', 'EdDSA'] as const;

/**
 * How far a proof's `iat` may be from the server's clock, seconds, either way (oidc-provider's window
 * at the token endpoint). No nonces are issued (docs/decisions.md), so this and the `jti` replay check
 * are what limit a captured proof's use.
 */
export const DPOP_PROOF_WINDOW_SECONDS = 300;
