/**
 * The only file that reaches into oidc-provider's internals: it has no hook before or around a grant,
 * so the grant handlers are wrapped where it keeps them (the refresh extension,
 * refresh-extension/, and the DPoP replay check before a code or refresh token is spent,
 * dpop-replay-first.ts). oidc-provider is pinned to an exact version; `oidc-internals.test.ts` fails as
 * soon as a new version moves or reshapes it.
 */
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';
import instance from 'oidc-provider/lib/helpers/weak_cache.js';

/** One of oidc-provider's grant handlers (the `grant_type` it serves is its key). */
export type GrantHandler = (ctx: KoaContextWithOIDC) => Promise<void>;

/** oidc-provider's grant handlers of `provider`, by grant type: replace one to wrap it. */
export function grantHandlers(provider: Provider): Map<string, GrantHandler> {
  return (instance(provider) as { grantTypeHandlers: Map<string, GrantHandler> }).grantTypeHandlers;
}
