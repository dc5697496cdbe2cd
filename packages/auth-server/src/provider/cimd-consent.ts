/**
 * A consent given to a metadata-document client holds for the document the user saw: it
 * is tied to {@link consentHash} of the client (its name and redirect URIs), and when the document
 * changes them the user is asked again, with every scope, as for a new app.
 *
 * Done in oidc-provider's `loadExistingGrant`, which every authorization request and resumption
 * calls: right after a consent (`result.consent.grantId`) it records the hash of the client as it
 * is, under the grant (`cimdConsent:<grantId>`, for the grant's lifetime); on a later request it
 * hands oidc-provider the existing grant only if the hash still matches, and otherwise none, so
 * the consent prompt lists everything again and the new consent makes a new grant. Other clients
 * (and every client when no store is given) keep oidc-provider's default behaviour.
 */
import { createHash } from 'node:crypto';
import type { RedisClient } from '@school/shared';
import type { Client, Grant, KoaContextWithOIDC } from 'oidc-provider';
import { cimdConsentKey } from '../storage/redis-keys.js';
import { isCimdClientId } from '../clients/client-id-url.js';

/** Where consent hashes live: Redis, for `ttlSeconds` (the grant's lifetime). */
export interface CimdConsentStore {
  redis: RedisClient;
  prefix: string;
  ttlSeconds: number;
}

/** oidc-provider's `loadExistingGrant`, with consents to metadata-document clients tied to their document. */
export function loadExistingGrant(store: CimdConsentStore | undefined) {
  return async function loadGrantForCurrentDocument(ctx: KoaContextWithOIDC): Promise<Grant | undefined> {
    const client = ctx.oidc.client!;
    const justGiven = ctx.oidc.result?.consent?.grantId;
    const grantId = justGiven || ctx.oidc.session!.grantIdFor(client.clientId);
    if (!grantId) return undefined;
    const grant = await ctx.oidc.provider.Grant.find(grantId);
    if (!grant) return undefined;
    if (justGiven) {
      await tieToDocument(store, grantId, client);
      return grant;
    }
    return (await tiedToCurrentDocument(store, grantId, client)) ? grant : undefined;
  };
}

/** Records that the consent behind `grantId` was given to the document `client` now has. */
export async function tieToDocument(
  store: CimdConsentStore | undefined,
  grantId: string,
  client: Client,
): Promise<void> {
  if (!store || !isCimdClientId(client.clientId)) return;
  await store.redis.set(cimdConsentKey(store.prefix, grantId), consentHash(client), 'EX', store.ttlSeconds);
}

/** False when `client` is a metadata-document client whose document changed since `grantId` was consented to. */
export async function tiedToCurrentDocument(
  store: CimdConsentStore | undefined,
  grantId: string,
  client: Client,
): Promise<boolean> {
  if (!store || !isCimdClientId(client.clientId)) return true;
  return (await store.redis.get(cimdConsentKey(store.prefix, grantId))) === consentHash(client);
}

/**
 * What a user's consent to a document-defined client is tied to: a hash of the parts that say who
 * the app is and where it sends the user (its name and redirect URIs; it has no keys here). When they
 * change, the user is asked again.
 */
export function consentHash(client: { clientName?: string; redirectUris?: readonly string[] }): string {
  const parts = [client.clientName ?? '', [...(client.redirectUris ?? [])].sort()];
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
}
