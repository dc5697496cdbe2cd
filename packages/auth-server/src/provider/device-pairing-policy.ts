/**
 * Which clients may use device pairing (RFC 8628), by `DEVICE_PAIRING` (docs/decisions.md):
 *
 * - `off`: oidc-provider's device flow is not enabled at all: no `device_authorization_endpoint`, the
 *   grant type is unsupported, registration refuses to list it.
 * - `integrations`: operator integrations, and metadata-document clients an operator allowed
 *   (`school-auth clients allow-cimd`, the same word that lets them use https redirect URIs).
 * - `all`: self-registered clients and every metadata-document client too.
 *
 * A client must also list the device_code grant type in its `grant_types`. A stored client whose kind
 * the setting does not allow loads without that grant type (the setting may have changed since it
 * registered), so the device authorization endpoint and the token endpoint both refuse it
 * (oidc-provider's `invalid_request`, "… is not allowed for this client"); open registration under
 * `integrations` refuses to list it. A metadata-document client is only ever built by the resolver
 * (cimd/cimd-resolver.ts), which knows the operator's list and keeps the grant type a document lists
 * only when {@link documentMayPairDevices} says so; the document keeps it, so allowing the client later
 * (or changing the setting) takes effect at its next load.
 */
import { DEVICE_CODE_GRANT_TYPE } from '@school/shared';
import { errors, type ClientMetadata, type KoaContextWithOIDC } from 'oidc-provider';
import { CLIENT_ROLE } from '../clients/client-kind.js';
import { isCimdClientId } from '../clients/client-id-url.js';

/** The `DEVICE_PAIRING` setting. */
export type DevicePairingMode = 'off' | 'integrations' | 'all';

/** Whether a client with `metadata` may pair devices under `mode`. */
export function mayPairDevices(mode: DevicePairingMode, metadata: ClientMetadata): boolean {
  if (mode === 'off') return false;
  const role = metadata[CLIENT_ROLE];
  if (role === 'integration') return true;
  if (role !== undefined) return false; // introspecting services never sign anyone in
  // Decided when the document was turned into this client (documentMayPairDevices), where the
  // operator's list is known; nothing else makes a client with such an id.
  if (typeof metadata.client_id === 'string' && isCimdClientId(metadata.client_id)) return true;
  return mode === 'all';
}

/** Whether a metadata-document client may pair devices under `mode`; `allowed`: an operator allowed it. */
export function documentMayPairDevices(mode: DevicePairingMode, allowed: boolean): boolean {
  return mode === 'all' || (mode === 'integrations' && allowed);
}

/**
 * Part of `extraClientMetadata.validator` (configuration.ts): refuses the device grant type at open
 * registration unless `mode` is `all`, and drops it from any other client `mode` does not allow.
 */
export function applyDevicePairingPolicy(
  mode: DevicePairingMode,
  ctx: KoaContextWithOIDC | undefined,
  metadata: ClientMetadata,
): void {
  const grants = metadata.grant_types;
  if (mode === 'off' || !Array.isArray(grants) || !grants.includes(DEVICE_CODE_GRANT_TYPE)) return;
  if (ctx?.oidc?.route === 'registration' && mode !== 'all')
    throw new errors.InvalidClientMetadata(
      `grant_types: ${DEVICE_CODE_GRANT_TYPE} is offered here to operator integrations only (DEVICE_PAIRING=integrations)`,
    );
  if (!mayPairDevices(mode, metadata))
    metadata.grant_types = grants.filter((grant) => grant !== DEVICE_CODE_GRANT_TYPE);
}
