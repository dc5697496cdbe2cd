/**
 * A request's DPoP proof (RFC 9449), read before a grant runs: its `jti` (dpop-replay-first.ts records
 * it) and the thumbprint of the key it is signed with (the refresh extension's same-installation
 * rule). Only the proof's signature is checked here, with the key the proof carries (RFC 9449 §4.3
 * step 7); its method, URL, age and nonce are oidc-provider's to check, which its grant handlers do
 * before they touch a code or a refresh token.
 */
import { DPOP_SIGNING_ALGS } from '@school/shared';
import { calculateJwkThumbprint, EmbeddedJWK, jwtVerify } from 'jose';
import type { KoaContextWithOIDC } from 'oidc-provider';

/** A DPoP proof whose signature holds. */
export interface DpopProof {
  /** The JWK thumbprint (RFC 7638) of the key it is signed with. */
  thumbprint: string;
  jti: string;
}

/** The request's DPoP proof, if it has one whose signature holds (anything else: undefined). */
export async function readDpopProof(ctx: KoaContextWithOIDC): Promise<DpopProof | undefined> {
  const proof = ctx.get('DPoP');
  if (!proof) return undefined;
  try {
    const { payload, protectedHeader } = await jwtVerify(proof, EmbeddedJWK, {
      typ: 'dpop+jwt',
      algorithms: [...DPOP_SIGNING_ALGS], // the provider's `dPoPSigningAlgValues`
    });
    if (typeof payload.jti !== 'string' || !payload.jti) return undefined;
    return { thumbprint: await calculateJwkThumbprint(protectedHeader.jwk!), jti: payload.jti };
  } catch {
    return undefined; // not a proof: oidc-provider refuses it with its own words
  }
}
