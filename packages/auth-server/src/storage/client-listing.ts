/**
 * Every stored client, a page at a time, for All clients and `school-auth clients list`: open
 * registrations, metadata-document clients with a stored record, operator integrations and services.
 * The configured clients (the introspector, the account pages) are not stored in Redis, so never listed.
 *
 * Paging walks the keyspace with SCAN (`Client:*`, `@school/shared` scanPage: on a Redis Cluster each
 * primary in turn, the cursor naming the primary), the cursor being SCAN's own: a page never loads
 * every client, costs at most {@link MAX_SCANS} SCAN calls of {@link SCAN_COUNT} keys, and stays correct
 * while clients come and go (SCAN returns every client stored for the whole walk at least once; one
 * moved by a rehash may show twice). The price: no global order, and no total. A page is the clients
 * of whole SCAN batches (a batch cannot be split: its rest could not be resumed), sorted newest first
 * within the page: at least `pageSize` clients unless the walk ends or the SCAN budget is spent, and
 * at most the rest of one batch more. Why not an index (a sorted set by creation): it would need a
 * write beside every client stored or removed, in the adapter, the removal script and the CIMD
 * resolver, and a backfill; a school has tens or hundreds of clients, which SCAN serves well.
 *
 * The filters read what storage keeps beside each client: last use (`clientUsedAt`, client-usage.ts,
 * which may lag by its resolution) and the kind (clients/client-kind.ts).
 */
import { getMany, REGISTRATION_CAPS, scanPage, type RedisClient } from '@school/shared';
import type { ClientMetadata } from 'oidc-provider';
import type { AppIdentity } from '../pages/page-parts.js';
import { clientKind } from '../clients/client-kind.js';
import { countGrantingAccounts } from './client-accounts.js';
import { modelPrefix, usageKey } from './redis-keys.js';

/** Keys examined per SCAN call (SCAN's COUNT hint): about a millisecond of Redis time. */
export const SCAN_COUNT = 500;
/** SCAN calls one page may make before it is answered with what it found. */
export const MAX_SCANS = 40;

/** One stored client as the listing shows it. */
export interface ListedClient extends AppIdentity {
  redirectUris: string[];
  /** When it was registered, Unix seconds (operator clients made before this was recorded: none). */
  createdAt?: number;
  /** When its tokens were last used, Unix seconds; none when they never were. */
  lastUsed?: number;
  /** Accounts holding a grant of it now. */
  accounts: number;
}

/** The kinds a listing can be filtered by. */
export const LISTED_KINDS = ['open', 'metadata-document', 'integration', 'service'] as const;

/** What to list. */
export interface ClientFilter {
  kind?: (typeof LISTED_KINDS)[number];
  /** Only clients whose tokens were never issued or used (it never completed a flow). */
  neverUsed?: boolean;
  /** Only clients not used for this many days (never used: since it was registered). */
  idleDays?: number;
}

/** One page of clients, and the cursor of the next when the walk is not over. */
export interface ClientPage {
  clients: ListedClient[];
  next?: string;
}

/** Whether `c` passes `filter` at `now` (Unix seconds). */
export function matchesClientFilter(c: ListedClient, filter: ClientFilter, now: number): boolean {
  if (filter.kind && c.kind !== filter.kind) return false;
  if (filter.neverUsed && c.lastUsed !== undefined) return false;
  if (filter.idleDays !== undefined) {
    const since = c.lastUsed ?? c.createdAt ?? 0;
    if (now - since < filter.idleDays * 86400) return false;
  }
  return true;
}

/** What {@link readStoredClient} and {@link storedClients} give for a record that does not read. */
export const UNREADABLE = 'unreadable';

/**
 * A stored client record, or {@link UNREADABLE} when it is not a JSON object (corrupt): such a client
 * is listed with its id alone, never taking its page down.
 */
export function readStoredClient(json: string): ClientMetadata | typeof UNREADABLE {
  try {
    const value: unknown = JSON.parse(json);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as ClientMetadata;
  } catch {
    // corrupt: listed as unreadable
  }
  return UNREADABLE;
}

function toListed(id: string, m: ClientMetadata | typeof UNREADABLE, usedAt: string | null): ListedClient {
  const lastUsed = usedAt ? Number(usedAt) : undefined;
  if (m === UNREADABLE) {
    const kind = clientKind({ clientId: id, metadata: () => ({}) });
    return { clientId: id, kind, unavailable: true, redirectUris: [], lastUsed, accounts: 0 };
  }
  return {
    clientId: id,
    name: m.client_name,
    kind: clientKind({ clientId: id, metadata: () => m }),
    redirectUris: [...(m.redirect_uris ?? [])],
    createdAt: typeof m.client_id_issued_at === 'number' ? m.client_id_issued_at : undefined,
    lastUsed,
    accounts: 0,
  };
}

/** One page of the stored clients matching `filter`, from `cursor` ('0' or none: the start). */
export async function listClients(
  redis: RedisClient,
  prefix: string,
  { filter = {}, cursor = '0', pageSize = 25, now = Date.now() }: ClientListOptions = {},
): Promise<ClientPage> {
  const clientPrefix = modelPrefix(prefix, 'Client');
  const seconds = Math.floor(now / 1000);
  const found: ListedClient[] = [];
  let at = cursor;
  for (let scans = 0; scans < MAX_SCANS; scans++) {
    const [next, keys] = await scanPage(redis, clientPrefix, at, SCAN_COUNT);
    at = next;
    if (keys.length) {
      const ids = keys.map((k) => k.slice(clientPrefix.length));
      const [stored, used] = await Promise.all([getMany(redis, keys), redis.hmget(usageKey(prefix), ...ids)]);
      for (const [i, json] of stored.entries()) {
        if (!json) continue; // removed meanwhile
        const client = toListed(ids[i]!, readStoredClient(json), used[i] ?? null);
        if (matchesClientFilter(client, filter, seconds)) found.push(client);
      }
    }
    if (at === '0' || found.length >= pageSize) break;
  }
  const accounts = await countGrantingAccounts(
    redis,
    prefix,
    found.map((c) => c.clientId),
  );
  found.forEach((c, i) => (c.accounts = accounts[i] ?? 0));
  found.sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0) || a.clientId.localeCompare(b.clientId));
  return { clients: found, next: at === '0' ? undefined : at };
}

/** Options of {@link listClients}. */
export interface ClientListOptions {
  filter?: ClientFilter;
  /** The cursor a previous page returned as `next`. */
  cursor?: string;
  /** Clients wanted per page (see the module comment for the bounds). */
  pageSize?: number;
  /** Now, ms. */
  now?: number;
}

/**
 * The stored metadata of `ids` (absent: not stored; {@link UNREADABLE}: a record that does not read),
 * one pipelined GET each (MGET cannot span slots).
 */
export async function storedClients(
  redis: RedisClient,
  prefix: string,
  ids: readonly string[],
): Promise<Map<string, ClientMetadata | typeof UNREADABLE>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  const values = await getMany(
    redis,
    unique.map((id) => modelPrefix(prefix, 'Client') + id),
  );
  const out = new Map<string, ClientMetadata | typeof UNREADABLE>();
  values.forEach((json, i) => json && out.set(unique[i]!, readStoredClient(json)));
  return out;
}

/**
 * Whether a client record is stored under `clientId` (one EXISTS, which writes nothing). An id longer
 * than any client id can be (a metadata-document URL's cap) is not looked up.
 */
export async function isStoredClient(redis: RedisClient, prefix: string, clientId: string): Promise<boolean> {
  if (clientId.length > REGISTRATION_CAPS.string) return false;
  return (await redis.exists(modelPrefix(prefix, 'Client') + clientId)) === 1;
}
