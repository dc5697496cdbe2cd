/**
 * The only file that reaches into oidc-provider's internals: it has no hook before or around a grant,
 * so the grant handlers are wrapped where it keeps them (refresh reuse, the resource check and the DPoP
 * replay check before a refresh token or code is spent), and the request's DPoP proof is read and
 * recorded with oidc-provider's own helpers. oidc-provider is pinned to an exact version;
 * `oidc-internals.test.ts` fails as soon as a new version moves or reshapes any of these.
 */
import { errors, type KoaContextWithOIDC, type Provider } from 'oidc-provider';
import validateDpop, { checkDpopReplay } from 'oidc-provider/lib/helpers/validate_dpop.js';
import instance from 'oidc-provider/lib/helpers/weak_cache.js';

/** One of oidc-provider's grant handlers (the `grant_type` it serves is its key). */
export type GrantHandler = (ctx: KoaContextWithOIDC) => Promise<void>;

/** A request's DPoP proof, as oidc-provider checked it. */
export interface DpopProof {
  thumbprint: string;
  jti: string;
  iat: number;
}

/** oidc-provider's grant handlers of `provider`, by grant type: replace one to wrap it. */
export function grantHandlers(provider: Provider): Map<string, GrantHandler> {
  return (instance(provider) as { grantTypeHandlers: Map<string, GrantHandler> }).grantTypeHandlers;
}

/** The request's DPoP proof, checked (signature, method, URL, age) and remembered for the request; or none. */
export function requestDpopProof(
  provider: Provider,
  ctx: KoaContextWithOIDC,
): Promise<DpopProof | undefined> {
  return validateDpop(provider, ctx);
}

/** Records `proof`'s `jti` for `clientId`; a proof seen before is `invalid_dpop_proof`. */
export function recordDpopProof(
  provider: Provider,
  ctx: KoaContextWithOIDC,
  proof: DpopProof,
  clientId: string,
): Promise<void> {
  return checkDpopReplay(provider, ctx, proof, clientId, errors.InvalidDpopProof);
}
