/**
 * The DPoP proof that must come with every call of a DPoP-bound access token (RFC 9449 §4.3, §7.1):
 * a JWT of type `dpop+jwt`, signed with an accepted asymmetric algorithm by the public key in its own
 * header (jose's EmbeddedJWK), whose
 * - `htm` is the request's method and `htu` the URL the client called, without query and fragment:
 *   built from BASE_URL (the public origin), never from the request's Host or forwarded headers;
 * - `iat` is within {@link DPOP_PROOF_WINDOW_SECONDS} of this server's clock;
 * - `ath` is the SHA-256 of the access token it comes with;
 * - key's thumbprint (RFC 7638) is the token's `cnf.jkt`;
 * - `jti` has not been seen with that key before, by any API instance (`seen`, dpop-replay.ts),
 *   checked last so that a proof failing anything else costs no Redis write.
 * No nonce is asked for (docs/decisions.md); a proof carrying one is refused, since none was issued.
 */
import { hash } from 'node:crypto';
import { DPOP_PROOF_WINDOW_SECONDS, DPOP_SIGNING_ALGS } from '@school/shared';
import { calculateJwkThumbprint, EmbeddedJWK, jwtVerify, type JWK } from 'jose';

/** Whether a proof is new (true) or was seen before; throws when that cannot be told. */
export type ProofFirstSeen = (jkt: string, jti: string) => Promise<boolean>;

/** What is checked against the proof. */
export interface ProofExpectation {
  /** The request's method. */
  method: string;
  /** The URL the client called, query and fragment removed. */
  url: string;
  /** The access token the proof comes with. */
  accessToken: string;
  /** The token's `cnf.jkt`. */
  jkt: string;
  seen: ProofFirstSeen;
}

/** The proof is good, or why not (said to the client as `invalid_dpop_proof`). */
export type ProofCheck = { ok: true } | { ok: false; reason: string };

const refuse = (reason: string): ProofCheck => ({ ok: false, reason });

/** The `htu` of a proof as compared: a URL without query and fragment, or undefined. */
function comparable(htu: unknown): string | undefined {
  if (typeof htu !== 'string') return undefined;
  const url = URL.parse(htu);
  if (!url) return undefined;
  url.search = '';
  url.hash = '';
  return url.href;
}

/** Checks one DPoP proof (see the top of this file). */
export async function checkDpopProof(proof: string, expected: ProofExpectation): Promise<ProofCheck> {
  let payload;
  let jwk: JWK | undefined;
  try {
    ({
      payload,
      protectedHeader: { jwk },
    } = await jwtVerify(proof, EmbeddedJWK, {
      typ: 'dpop+jwt',
      algorithms: [...DPOP_SIGNING_ALGS],
    }));
  } catch {
    return refuse(
      `the DPoP proof must be a dpop+jwt signed (${DPOP_SIGNING_ALGS.join(', ')}) by the key in its jwk header`,
    );
  }
  if (!jwk || 'd' in jwk) return refuse('the jwk header of the DPoP proof must be a public key');
  const { jti, htm, htu, iat, ath, nonce } = payload as Record<string, unknown>;
  if (typeof jti !== 'string' || !jti || jti.length > 256) return refuse('the DPoP proof needs a jti');
  if (htm !== expected.method) return refuse(`the htm of the DPoP proof must be ${expected.method}`);
  if (comparable(htu) !== expected.url) return refuse(`the htu of the DPoP proof must be ${expected.url}`);
  if (typeof iat !== 'number' || Math.abs(Date.now() / 1000 - iat) > DPOP_PROOF_WINDOW_SECONDS)
    return refuse(`the iat of the DPoP proof must be within ${DPOP_PROOF_WINDOW_SECONDS} s of now`);
  if (nonce !== undefined) return refuse('this server issues no DPoP nonces');
  if (ath !== hash('sha256', expected.accessToken, 'base64url'))
    return refuse('the ath of the DPoP proof must be the SHA-256 of the access token');
  if ((await calculateJwkThumbprint(jwk, 'sha256')) !== expected.jkt)
    return refuse('the DPoP proof is signed by another key than the one the access token is bound to');
  if (!(await expected.seen(expected.jkt, jti))) return refuse('the DPoP proof has been used before');
  return { ok: true };
}
