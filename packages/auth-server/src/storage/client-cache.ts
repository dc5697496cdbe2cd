/**
 * Stored clients (dynamically registered and operator-created), kept in process for a few seconds.
 *
 * oidc-provider reads the client from storage on every request that names one (a Redis round trip, a
 * JSON parse and a SHA-256 of the metadata each time), while clients change only when registered or
 * deleted. Writes and deletes through this process evict the entry at once; a client deleted through
 * another process (the `school-auth` command, another instance) keeps working here for at most the
 * cache's lifetime (5 s by default). Unknown client ids are never cached.
 *
 * Entries are parsed once and deep-frozen, and handed out as they are, as oidc-provider's own memory
 * adapter does: nothing can change them in place (a write throws), so no copy is needed.
 */
import { LRUCache } from 'lru-cache';
import type { AdapterPayload } from 'oidc-provider';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** A bounded, short-lived cache of stored clients' metadata, by client id. */
export class ClientCache {
  private readonly entries: LRUCache<string, AdapterPayload>;
  /** Bumped by every client write or delete, so a read that raced one is not cached. */
  private writes = 0;

  /** `ttlMs`: how long an entry is reused; `max`: at most this many (the least recently used goes). */
  constructor(ttlMs: number, max: number) {
    this.entries = new LRUCache({ max, ttl: ttlMs });
  }

  /** The cached metadata of `clientId`, while it is fresh. */
  get(clientId: string): AdapterPayload | undefined {
    return this.entries.get(clientId);
  }

  /** Call before reading a client from storage; hand the result to {@link keep}. */
  readStarted(): number {
    return this.writes;
  }

  /**
   * `payload` (the client as read from storage, or undefined), cached unless it is unknown or a write
   * or delete happened since {@link readStarted} returned `started`.
   */
  keep(clientId: string, payload: AdapterPayload | undefined, started: number): AdapterPayload | undefined {
    if (!payload) return undefined;
    if (started !== this.writes) return payload;
    this.entries.set(clientId, deepFreeze(payload));
    return payload;
  }

  /** Forgets `clientId`: this process is writing or deleting it. */
  forget(clientId: string): void {
    this.writes++;
    this.entries.delete(clientId);
  }
}
