/**
 * A DPoP client's key and proofs (RFC 9449 §4), made with jose, for suites that need proofs a real
 * client would never send (replayed, for another URL, another key, old): the end-to-end suite also
 * drives oauth4webapi's own DPoP support unmodified. And the authorization-code flow with the code
 * exchanged under a proof, so the tokens are bound to the key.
 */
import { hash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import { ADMIN } from './auth-server.js';
import {
  codeExchange,
  obtainCode,
  tokenRequest,
  type HttpResult,
  type Issuer,
  type IssuedCode,
  type OAuthClient,
} from './oauth-flow.js';

/** What a proof may differ in from a correct one. */
export interface ProofOptions {
  /** The access token the proof comes with (`ath`). */
  accessToken?: string;
  /** Seconds since the epoch (default: now). */
  iat?: number;
  jti?: string;
  typ?: string;
  /** Members added to the payload (e.g. a `nonce`). */
  extra?: Record<string, unknown>;
}

/** One DPoP key pair (ES256) and the proofs it signs. */
export class DpopKey {
  private constructor(
    private readonly privateKey: CryptoKey,
    readonly publicJwk: JWK,
    /** The key's RFC 7638 thumbprint: the `cnf.jkt` of tokens bound to it. */
    readonly jkt: string,
  ) {}

  static async create(): Promise<DpopKey> {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const publicJwk = await exportJWK(publicKey);
    return new DpopKey(privateKey, publicJwk, await calculateJwkThumbprint(publicJwk));
  }

  /** A proof for `method` `url`. */
  proof(method: string, url: string, options: ProofOptions = {}): Promise<string> {
    return new SignJWT({
      htm: method,
      htu: url,
      jti: options.jti ?? randomUUID(),
      ...(options.accessToken ? { ath: hash('sha256', options.accessToken, 'base64url') } : {}),
      ...options.extra,
    })
      .setProtectedHeader({ alg: 'ES256', typ: options.typ ?? 'dpop+jwt', jwk: this.publicJwk })
      .setIssuedAt(options.iat ?? Math.floor(Date.now() / 1000))
      .sign(this.privateKey);
  }
}

/** The token endpoint of `auth`, as a proof's `htu`. */
export const tokenEndpoint = (auth: Issuer) => `${auth.issuer}/api/oauth/token`;

/** Signs in as the test admin and exchanges the code with a proof of `key`: DPoP-bound tokens. */
export async function signInWithDpop(
  auth: Issuer,
  client: OAuthClient,
  key: DpopKey,
  opts: { scope: string; resource?: string },
): Promise<HttpResult> {
  const issued = await obtainCode(auth, client, { account: ADMIN, ...opts });
  const form = codeExchange(client, issued);
  return tokenRequest(auth, opts.resource ? { ...form, resource: opts.resource } : form, {
    dpop: await key.proof('POST', tokenEndpoint(auth)),
  });
}

/**
 * Redeems `issued` with oauth4webapi as its public client would: the callback validated, the code
 * exchanged with `options` (its DPoP handle, a fetch of its own), the answer processed.
 */
export async function redeemWithOauth4webapi(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  issued: IssuedCode,
  options: oauth.TokenEndpointRequestOptions,
): Promise<oauth.TokenEndpointResponse> {
  const params = new URLSearchParams({ code: issued.code, iss: as.issuer });
  const callback = oauth.validateAuthResponse(as, client, params, oauth.skipStateCheck);
  const res = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    callback,
    issued.redirectUri,
    issued.verifier,
    options,
  );
  return oauth.processAuthorizationCodeResponse(as, client, res);
}
