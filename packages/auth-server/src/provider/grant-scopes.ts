/**
 * Changing which scopes a stored grant holds, beyond oidc-provider's add-only `addOIDCScope` /
 * `addResourceScope`: a consent that grants only the scopes the admin left ticked, and Connected
 * apps narrowing a grant to the scopes its app used.
 *
 * A grant keeps scopes in two places: `openid.scope` (the OpenID scopes, and API scopes asked for
 * without a resource indicator) and `resources[<indicator>]`. A refused scope is also recorded as
 * rejected (oidc-provider's `rejected`), only so that the consent prompt counts it as answered for
 * the request at hand; {@link forgetRefusals} drops those records from the grant a new request
 * loads (not from the stored one), so an app that asks again for a refused scope shows the admin the
 * consent page again, where the stored records ({@link refusedScopes}) mark it as refused before and
 * leave it unticked. A refusal is kept until the admin allows that scope.
 *
 * A grant also ends when the admin chose (its `exp`, set on the consent page): {@link withinGrant}
 * keeps the tokens issued from it from outliving it.
 */
import type { Grant, KoaContextWithOIDC } from 'oidc-provider';

/**
 * A token lifetime of `ttl` seconds, cut to what is left of the grant it is issued from (the token
 * endpoint names it as the `Grant` entity before issuing): no access or refresh token outlives the
 * access the admin chose. Always at least 1 (oidc-provider's rule; an ended grant issues nothing).
 */
export function withinGrant(ctx: KoaContextWithOIDC | undefined, ttl: number): number {
  const grant = ctx?.oidc?.entities?.Grant;
  if (!grant?.exp) return ttl;
  return Math.max(1, Math.min(ttl, grant.exp - Math.floor(Date.now() / 1000)));
}

/** The raw fields of a grant this module reads and writes (oidc-provider's payload). */
interface ScopeFields {
  openid?: { scope?: string; claims?: string[] };
  resources?: Record<string, string | undefined>;
}
interface GrantFields extends ScopeFields {
  rejected?: ScopeFields;
}

const fields = (grant: Grant) => grant as unknown as GrantFields;

function without(list: string | undefined, drop: ReadonlySet<string>): string | undefined {
  if (list === undefined) return undefined;
  return list
    .split(' ')
    .filter((s) => s && !drop.has(s))
    .join(' ');
}

/** The scopes of `f` (OpenID scopes and every resource's), once each. */
function scopesOf(f: ScopeFields | undefined): string[] {
  const all = [f?.openid?.scope ?? '', ...Object.values(f?.resources ?? {}).map((s) => s ?? '')];
  return [...new Set(all.join(' ').split(' ').filter(Boolean))];
}

/** Every scope `grant` holds (OpenID scopes and every resource's), once each. */
export function grantedScopes(grant: Grant): string[] {
  return scopesOf(fields(grant));
}

/** Every scope recorded as refused in `grant` (as stored: see the module comment), once each. */
export function refusedScopes(grant: Grant): string[] {
  return scopesOf(fields(grant).rejected).filter((s) => s !== 'openid');
}

/** Gives `to` the refusals recorded in `from` (a copy of a grant refuses what it refused). */
export function copyRefusals(from: Grant, to: Grant): void {
  const { rejected } = fields(from);
  if (rejected) fields(to).rejected = structuredClone(rejected);
}

/** Takes `scopes` out of `grant` wherever it holds them (`openid` stays: it grants no data). */
export function removeScopes(grant: Grant, scopes: Iterable<string>): void {
  const drop = new Set([...scopes].filter((s) => s !== 'openid'));
  const f = fields(grant);
  if (f.openid?.scope !== undefined) f.openid.scope = without(f.openid.scope, drop);
  for (const indicator of Object.keys(f.resources ?? {})) {
    f.resources![indicator] = without(f.resources![indicator], drop);
  }
}

/** Records `scopes` as refused in this consent, for the OpenID scopes and for `indicators`. */
export function recordRefusals(grant: Grant, scopes: readonly string[], indicators: Iterable<string>): void {
  if (!scopes.length) return;
  grant.rejectOIDCScope(scopes.join(' '));
  for (const indicator of indicators) grant.rejectResourceScope(indicator, scopes.join(' '));
}

/** Forgets the refusals of earlier consents (see the module comment). */
export function clearRefusals(grant: Grant): void {
  delete fields(grant).rejected;
}

/**
 * Wraps a `loadExistingGrant`: a new authorization request sees the grant without its refusals, so a
 * refused scope asked for again is asked of the admin again. Resuming right after a consent keeps them
 * (that consent's refusals answer the request).
 */
export function forgetRefusals(
  load: (ctx: KoaContextWithOIDC) => Promise<Grant | undefined>,
): (ctx: KoaContextWithOIDC) => Promise<Grant | undefined> {
  return async function loadWithoutRefusals(ctx) {
    const grant = await load(ctx);
    if (grant && !ctx.oidc.result?.consent) clearRefusals(grant);
    return grant;
  };
}
