/**
 * The lifecycle of self-registered clients: open registration lets anyone store
 * a client, so clients that are not used go away by themselves.
 *
 * - A self-registered client that never has a token issued or used (it never completes an
 *   authorization) within CLIENT_UNUSED_TTL of its registration is removed, with any grant it got.
 * - One whose tokens have not been used for CLIENT_IDLE_TTL is removed with its grants and tokens.
 * - Operator clients (marked with `client_role`, which open registration refuses to set) and the
 *   configured clients (not stored in Redis) are never removed.
 *
 * "Used" is the last-use time client-usage.ts keeps; since it may lag by one resolution, a client
 * counts as idle only after CLIENT_IDLE_TTL plus that resolution. Clients registered before usage was
 * first recorded (`clientUsageSince`, set once by the first process that records) count as used at
 * that moment, so upgrading never removes a client for uses nobody could have recorded.
 *
 * A removal is client-removal.ts: grants and tokens first, then the client. The sweep also ends
 * orphans, grants and last-use times of clients no longer stored (an interrupted removal, a grant
 * racing one, a client deleted straight from Redis), so it finishes any removal that stopped midway.
 *
 * Several instances may run the sweep: a Redis lock (SET NX with an expiry, released only by its
 * holder) lets one run at a time, and a run is idempotent anyway (removing a removed client is a no-op).
 */
import { randomUUID } from 'node:crypto';
import { getMany, scanKeys, type RedisClient } from '@school/shared';
import { CLIENT_ROLE } from '../clients/client-kind.js';
import {
  removeClient,
  type ClientStore,
  type Removal,
  type RemovalReason,
} from '../storage/client-removal.js';
import { usageResolutionSeconds } from '../storage/client-usage.js';
import {
  clientGrantsPrefix,
  clientOfGrantsKey,
  modelKey,
  modelPrefix,
  usageKey,
} from '../storage/redis-keys.js';

/** The lifecycle's periods, seconds (CLIENT_UNUSED_TTL, CLIENT_IDLE_TTL). */
export interface LifecyclePolicy {
  unusedSeconds: number;
  idleSeconds: number;
}

/** What one sweep did. */
export interface SweepResult {
  /** True when another sweep held the lock: this one did nothing. */
  skipped: boolean;
  removed: (Removal & { reason: RemovalReason })[];
}

/** How long a sweep may hold the lock before another may start, ms. */
const LOCK_MS = 10 * 60_000;
const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** The key holding when usage recording began (Unix seconds). */
export function usageSinceKey(prefix: string): string {
  return `${prefix}clientUsageSince`;
}

/** Notes when usage recording began, once per storage (later calls keep the first time). */
export async function markUsageRecordingStart(redis: RedisClient, prefix: string): Promise<void> {
  await redis.set(usageSinceKey(prefix), String(Math.floor(Date.now() / 1000)), 'NX');
}

/** Why a stored client should go now, or undefined to keep it. Times are Unix seconds. */
export function lifecycleVerdict(
  metadata: Record<string, unknown>,
  usedAt: number | undefined,
  policy: LifecyclePolicy,
  now: number,
  usageSince: number,
): 'unused' | 'idle' | undefined {
  if (metadata[CLIENT_ROLE] !== undefined) return undefined; // an operator client
  const issued = typeof metadata.client_id_issued_at === 'number' ? metadata.client_id_issued_at : 0;
  if (usedAt === undefined && issued >= usageSince) {
    return now - issued > policy.unusedSeconds ? 'unused' : undefined;
  }
  const lastUse = usedAt ?? usageSince;
  return now - lastUse > policy.idleSeconds + usageResolutionSeconds(policy.idleSeconds) ? 'idle' : undefined;
}

/** Runs one sweep over every stored client (see the module comment). */
export async function sweepClients(
  store: ClientStore,
  policy: LifecyclePolicy,
  now = Date.now(),
): Promise<SweepResult> {
  const { redis, prefix } = store;
  const lock = `${prefix}clientSweepLock`;
  const holder = randomUUID();
  if ((await redis.set(lock, holder, 'PX', LOCK_MS, 'NX')) !== 'OK') return { skipped: true, removed: [] };
  const removed: SweepResult['removed'] = [];
  const remove = async (clientId: string, reason: RemovalReason) => {
    removed.push({ ...(await removeClient(store, clientId, reason)), reason });
  };
  try {
    const seconds = Math.floor(now / 1000);
    const since = Number((await redis.get(usageSinceKey(prefix))) ?? seconds);
    const clientPrefix = modelPrefix(prefix, 'Client');
    for await (const keys of scanKeys(redis, clientPrefix)) {
      const ids = keys.map((k) => k.slice(clientPrefix.length));
      const [stored, used] = await Promise.all([getMany(redis, keys), redis.hmget(usageKey(prefix), ...ids)]);
      for (const [i, clientId] of ids.entries()) {
        if (!stored[i]) continue;
        const usedAt = used[i] ? Number(used[i]) : undefined;
        const verdict = lifecycleVerdict(
          JSON.parse(stored[i]) as Record<string, unknown>,
          usedAt,
          policy,
          seconds,
          since,
        );
        if (verdict) await remove(clientId, verdict);
      }
    }
    for (const clientId of await orphans(redis, prefix)) await remove(clientId, 'orphaned');
    return { skipped: false, removed };
  } finally {
    await redis.eval(RELEASE_SCRIPT, 1, lock, holder);
  }
}

/** Ids that have grants or a last-use time but no stored client. */
async function orphans(redis: RedisClient, prefix: string): Promise<string[]> {
  const named = new Set<string>();
  const grantsPrefix = clientGrantsPrefix(prefix);
  for await (const keys of scanKeys(redis, grantsPrefix)) {
    for (const k of keys) named.add(clientOfGrantsKey(prefix, k));
  }
  const usage = redis.hscanStream(usageKey(prefix), { count: 500 }) as AsyncIterable<string[]>;
  for await (const pairs of usage) {
    for (let i = 0; i < pairs.length; i += 2) named.add(pairs[i]!);
  }
  const ids = [...named];
  const exists = await Promise.all(ids.map((id) => redis.exists(modelKey(prefix, 'Client', id))));
  return ids.filter((_, i) => exists[i] === 0);
}
