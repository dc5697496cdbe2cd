/**
 * Clients only an operator can create (docs/decisions.md): registered integrations (confidential, fixed
 * HTTPS redirect URIs), named native clients (public, PKCE, one loopback redirect URI, for a client
 * that cannot register itself) and introspecting services (confidential, no grants, may introspect any
 * token). They are stored with the dynamically registered clients, marked by `client_role`, which
 * open registration refuses to set, so the lifecycle sweep never removes them. Also here: the egress
 * ranges an operator lists for a hosted client (clients/egress-ranges.ts).
 */
import { randomBytes } from 'node:crypto';
import { DEVICE_CODE_GRANT_TYPE, getMany, scanKeys, type RedisClient } from '@school/shared';
import type { Adapter, ClientMetadata, Provider } from 'oidc-provider';
import { CLIENT_ROLE, hasFixedHttpsCallbacks, type ClientRole } from '../clients/client-kind.js';
import { isCimdClientId } from '../clients/client-id-url.js';
import { egressRange } from '../clients/egress-ranges.js';
import { loopbackRedirectProblem, memberProblem } from './client-policy.js';
import { forgetEgressRanges, storeEgressRanges } from '../storage/client-egress.js';
import { removeClient, type ClientStore } from '../storage/client-removal.js';
import { cimdAllowedKey, modelKey, modelPrefix } from '../storage/redis-keys.js';

/** A stored operator client as listed. */
export interface OperatorClient {
  client_id: string;
  client_name?: string;
  client_role: ClientRole;
  redirect_uris: string[];
}

/** What creating one returns: the only time the secret is shown. */
export interface CreatedClient extends OperatorClient {
  client_secret: string;
}

/** What creating a native client returns: it has no secret. */
export interface CreatedNativeClient extends OperatorClient {
  token_endpoint_auth_method: 'none';
}

const randomId = (prefix: string) => `${prefix}-${randomBytes(12).toString('base64url')}`;
const randomSecret = () => randomBytes(32).toString('base64url');

/** Why `uri` cannot be an integration's redirect URI, or undefined. */
export function integrationRedirectProblem(uri: string): string | undefined {
  const url = URL.parse(uri);
  if (!url) return `${uri} is not an absolute URI`;
  if (url.protocol !== 'https:') return `${uri} must use https`;
  if (url.hash) return `${uri} must not have a fragment`;
  return undefined;
}

/** The Client model's storage (public at runtime, missing from the type declarations). */
const clientStorage = (provider: Provider) => (provider.Client as unknown as { adapter: Adapter }).adapter;

async function store(provider: Provider, metadata: ClientMetadata): Promise<void> {
  // An operator's name is shown on the consent page as the app's: the display rule holds for it too.
  const nameProblem = memberProblem('client_name', metadata.client_name);
  if (nameProblem) throw new Error(nameProblem);
  await provider.Client.validate(metadata); // the provider's own schema checks, as for any client
  await clientStorage(provider).upsert(metadata.client_id, metadata);
}

/**
 * Creates a registered integration with fixed HTTPS redirect URIs; `devicePairing`: it may also pair
 * devices (the device_code grant type, refused by the provider's checks while DEVICE_PAIRING is off).
 */
export async function createIntegration(
  provider: Provider,
  name: string,
  redirectUris: string[],
  { devicePairing = false }: { devicePairing?: boolean } = {},
): Promise<CreatedClient> {
  const problems = redirectUris.map(integrationRedirectProblem).filter(Boolean);
  if (!redirectUris.length) problems.push('at least one --redirect-uri is needed');
  if (problems.length) throw new Error(problems.join('; '));
  const metadata: ClientMetadata = {
    client_id: randomId('int'),
    client_secret: randomSecret(),
    client_name: name,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    application_type: 'web',
    redirect_uris: redirectUris,
    grant_types: ['authorization_code', 'refresh_token', ...(devicePairing ? [DEVICE_CODE_GRANT_TYPE] : [])],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_post',
    [CLIENT_ROLE]: 'integration',
  };
  await store(provider, metadata);
  return {
    client_id: metadata.client_id,
    client_secret: metadata.client_secret!,
    client_name: name,
    client_role: 'integration',
    redirect_uris: redirectUris,
  };
}

/**
 * Creates a named public client for an app that cannot register itself (e.g. Cursor, which takes a
 * fixed client id and redirects to `http://localhost:8787/callback`): no secret, PKCE as for every
 * client, one loopback redirect URI checked by open registration's rule and matched on any port
 * (RFC 8252 §7.3, as for every native client).
 */
export async function createNative(
  provider: Provider,
  name: string,
  redirectUri: string,
): Promise<CreatedNativeClient> {
  const problem = loopbackRedirectProblem(redirectUri);
  if (problem) throw new Error(`--redirect-uri ${problem.replace(/; fixed HTTPS callbacks need .*$/, '')}`);
  const metadata: ClientMetadata = {
    client_id: randomId('app'),
    client_name: name,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    application_type: 'native',
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    [CLIENT_ROLE]: 'native',
  };
  await store(provider, metadata);
  return {
    client_id: metadata.client_id,
    client_name: name,
    client_role: 'native',
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: 'none',
  };
}

/** Creates a service client that may introspect every token (e.g. another resource API). */
export async function createIntrospector(provider: Provider, name: string): Promise<CreatedClient> {
  const metadata: ClientMetadata = {
    client_id: randomId('svc'),
    client_secret: randomSecret(),
    client_name: name,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    redirect_uris: [],
    grant_types: [],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_post',
    [CLIENT_ROLE]: 'introspector',
  };
  await store(provider, metadata);
  return {
    client_id: metadata.client_id,
    client_secret: metadata.client_secret!,
    client_name: name,
    client_role: 'introspector',
    redirect_uris: [],
  };
}

/** Lists the stored operator clients (integrations and introspecting services). */
export async function listOperatorClients(redis: RedisClient, prefix: string): Promise<OperatorClient[]> {
  const out: OperatorClient[] = [];
  const marker = modelPrefix(prefix, 'Client');
  for await (const keys of scanKeys(redis, marker)) {
    const values = await getMany(redis, keys);
    for (const json of values) {
      if (!json) continue;
      const m = JSON.parse(json) as ClientMetadata;
      const role = m[CLIENT_ROLE];
      if (role === 'integration' || role === 'native' || role === 'introspector') {
        out.push({
          client_id: m.client_id,
          client_name: m.client_name,
          client_role: role,
          redirect_uris: [...(m.redirect_uris ?? [])],
        });
      }
    }
  }
  return out.sort((a, b) => a.client_id.localeCompare(b.client_id));
}

/**
 * Deletes a stored client the operator names: its grants and tokens end first, then the client
 * (client-removal.ts). False when no such client was stored.
 */
export async function deleteClient(store: ClientStore, clientId: string): Promise<boolean> {
  const { existed } = await removeClient(store, clientId, 'operator');
  await forgetEgressRanges(store.redis, store.prefix, clientId);
  return existed;
}

/** Why `clientId` cannot have egress ranges (it is not a hosted client), or undefined. */
async function notHosted(redis: RedisClient, prefix: string, clientId: string): Promise<string | undefined> {
  if (isCimdClientId(clientId)) {
    const allowed = await redis.sismember(cimdAllowedKey(prefix), clientId);
    return allowed === 1
      ? undefined
      : `${clientId} may not use https callbacks: allow it first (school-auth clients allow-cimd)`;
  }
  const json = await redis.get(modelKey(prefix, 'Client', clientId));
  if (!json) return `There is no stored client ${clientId}`;
  const metadata = JSON.parse(json) as ClientMetadata;
  return hasFixedHttpsCallbacks({ clientId, metadata: () => metadata })
    ? undefined
    : `${clientId} is not a hosted client (its redirect URIs are not all fixed https callbacks)`;
}

/**
 * Lists `ranges` (CIDR) as the published egress ranges of the hosted client `clientId`, replacing
 * any listed before; returns them in network form. Refuses a client that is not hosted and a range
 * that does not read or is too wide (clients/egress-ranges.ts), storing nothing then.
 */
export async function setClientEgress(
  redis: RedisClient,
  prefix: string,
  clientId: string,
  ranges: string[],
): Promise<{ client_id: string; egress_ranges: string[] }> {
  if (!ranges.length) throw new Error('name at least one range');
  const read = ranges.map(egressRange);
  const problems = read.filter((r): r is Error => r instanceof Error).map((e) => e.message);
  const hosting = await notHosted(redis, prefix, clientId);
  if (hosting) problems.unshift(hosting);
  if (problems.length) throw new Error(problems.join('; '));
  const egress = [...new Set(read as string[])];
  await storeEgressRanges(redis, prefix, clientId, egress);
  return { client_id: clientId, egress_ranges: egress };
}
