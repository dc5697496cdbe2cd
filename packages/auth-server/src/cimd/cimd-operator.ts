/**
 * What an operator does about metadata-document clients (`school-auth clients …`): allow a client_id
 * URL to use https redirect URIs (as registered integrations do; open clients get loopback only), take
 * that back, and see each document's fetch status.
 */
import { scanKeys, type RedisClient } from '@school/shared';
import { cimdAllowedKey, cimdEntryPrefix } from '../storage/redis-keys.js';
import { isCimdClientId } from '../clients/client-id-url.js';
import type { DevicePairingMode } from '../provider/device-pairing-policy.js';
import { unusableForUse, type DroppedValue, type MetadataDocument } from './metadata-document.js';

/** One document as `school-auth clients cimd` shows it. */
export interface CimdClientStatus {
  client_id: string;
  /** `fresh`, `stale` (served while its host fails), `failed` or `invalid` (refused until it works). */
  status?: string;
  error?: string;
  /** Whether an operator allowed it: its https redirect URIs, and device pairing under `integrations`. */
  https_redirects_allowed: boolean;
  /**
   * What its document lists that the client does not get: values this server does not use, and
   * https redirect URIs and the device_code grant type while they are not allowed.
   */
  dropped?: DroppedValue[];
  checked_at?: string;
  fetched_at?: string;
  fresh_until?: string;
  stale_until?: string;
}

/** Throws, in the operator's words, unless `clientId` is a metadata-document URL. */
export function requireUrl(clientId: string): void {
  if (!isCimdClientId(clientId))
    throw new Error(
      `${clientId} is not a client metadata document URL (https, with a path, as a URL parser writes it)`,
    );
}

/**
 * Allows the metadata-document client `clientId` https redirect URIs, and device pairing when
 * DEVICE_PAIRING is `integrations`.
 */
export async function allowCimdClient(redis: RedisClient, prefix: string, clientId: string): Promise<void> {
  requireUrl(clientId);
  await redis.sadd(cimdAllowedKey(prefix), clientId);
}

/** Takes back {@link allowCimdClient}; false when it was not allowed. */
export async function disallowCimdClient(
  redis: RedisClient,
  prefix: string,
  clientId: string,
): Promise<boolean> {
  return (await redis.srem(cimdAllowedKey(prefix), clientId)) === 1;
}

const iso = (ms: string | undefined) => (ms ? new Date(Number(ms)).toISOString() : undefined);

/** What the entry's document lists that its client does not get, as it stands now. */
function droppedOf(
  entry: Record<string, string>,
  allowed: boolean,
  devicePairing: DevicePairingMode,
): DroppedValue[] | undefined {
  if (!entry.doc) return undefined;
  const dropped = JSON.parse(entry.dropped ?? '[]') as DroppedValue[];
  return [
    ...dropped,
    ...unusableForUse(JSON.parse(entry.doc) as MetadataDocument, { allowed, devicePairing }),
  ];
}

/** Every metadata-document client seen or allowed, with its last fetch's outcome under `devicePairing`. */
export async function listCimdClients(
  redis: RedisClient,
  prefix: string,
  devicePairing: DevicePairingMode = 'off',
): Promise<CimdClientStatus[]> {
  const allowed = new Set(await redis.smembers(cimdAllowedKey(prefix)));
  const entryPrefix = cimdEntryPrefix(prefix);
  const out = new Map<string, CimdClientStatus>();
  for (const id of allowed) out.set(id, { client_id: id, https_redirects_allowed: true });
  for await (const keys of scanKeys(redis, entryPrefix)) {
    for (const key of keys) {
      const e = await redis.hgetall(key);
      const id = key.slice(entryPrefix.length);
      out.set(id, {
        client_id: id,
        status: e.status,
        error: e.error || undefined,
        https_redirects_allowed: allowed.has(id),
        dropped: droppedOf(e, allowed.has(id), devicePairing),
        checked_at: iso(e.checkedAt),
        fetched_at: iso(e.fetchedAt),
        fresh_until: iso(e.freshUntil),
        stale_until: iso(e.staleUntil),
      });
    }
  }
  return [...out.values()].sort((a, b) => a.client_id.localeCompare(b.client_id));
}
