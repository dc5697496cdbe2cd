/**
 * A `client_id` that is a Client ID Metadata Document URL, resolved into the client oidc-provider
 * loads. The Redis adapter's `Client` find calls {@link CimdResolver.resolve} for such ids, so every
 * endpoint (authorization, token, revocation, introspection, the consent page) sees the same client.
 *
 * Caching, shared by every instance through Redis (`cimd:<url>`, redis-keys.ts):
 * - A valid document is reused for as long as its `Cache-Control`/`Expires` say, within a floor and a
 *   ceiling (CIMD_CACHE_MIN_SECONDS, CIMD_CACHE_MAX_SECONDS), without any fetch or budget.
 * - While the host fails (unreachable, timeout, 5xx, 429), a document that was valid is served stale
 *   for at most CIMD_STALE_SECONDS past its freshness, and kept (not served) after that, so that it
 *   is refreshed as a known document once the host is back. A failing host is tried again at most
 *   every `retrySeconds`. A host that answers but refuses (404, wrong type, ...) or serves an invalid
 *   document ends it at once: that is the host's own word.
 * - A failure is never served from cache, and its entry (kept for the operator's view) lives
 *   `failureSeconds`; a request refused before anything was fetched (a budget, a special-use IP
 *   literal) leaves no entry at all.
 * - Every outcome is logged with its detail and recorded in the entry (`school-auth clients cimd`);
 *   the client is only told that the document could not be used, never what an address answered.
 *
 * - What a document listed that this server does not use (cimd/metadata-document.ts) is kept in the
 *   entry (`dropped`) and reported with the fetch's outcome, for the log and the operator's view.
 *
 * Budgets (who may make this server fetch): refreshing a document already held spends nothing, so
 * nobody can keep a working client from its refresh. A first fetch (no document held) spends, in this
 * order, the requesting address's budget (CIMD_FIRST_FETCHES_PER_MINUTE_PER_ADDRESS: made-up client
 * ids cost their sender), that address's share of the host's budget (a tenth of it, at least one: no
 * sender may use more, so denying a host's new clients takes ten senders, not one or three), and the
 * host's budget (CIMD_FETCHES_PER_MINUTE_PER_HOST: protects the remote host). Any of them exhausted
 * answers `429` with `Retry-After` and fetches nothing; a refusal by an earlier one spends none of the
 * later ones (docs/decisions.md, "Lenient metadata documents").
 *
 * Why not oidc-provider's own (experimental) `features.clientIdMetadataDocument`: its cache is an
 * in-process LRU of 100 documents (each instance fetches on its own), it has no stale serving and no
 * status anyone can look at, its fetch cannot be given a test CA or our budgets, and its clients are
 * not stored, so our token reads (which check that a token's client is stored) would find every token
 * of such a client gone.
 *
 * The resolved client is also stored as a `Client:<url>` record, as registered clients are, because
 * token reads check that a token's client is stored (redis-adapter.ts); it is refreshed on every
 * successful fetch. The operator-allowed list (`cimdAllowed`) decides whether its https redirect URIs
 * count, and with DEVICE_PAIRING whether a device_code grant type it lists does (metadata-document.ts).
 */
import type { RedisClient } from '@school/shared';
import { errors, type ClientMetadata } from 'oidc-provider';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { boundedKeyPart, cimdAllowedKey, cimdEntryKey, modelKey } from '../storage/redis-keys.js';
import { DocumentFetchError, type FetchedDocument } from './document-fetcher.js';
import { TooManyRequests } from '../provider/too-many-requests.js';
import type { DevicePairingMode } from '../provider/device-pairing-policy.js';
import {
  checkDocument,
  toClientMetadata,
  unusableForUse,
  type DroppedValue,
  type MetadataDocument,
} from './metadata-document.js';

const DAY_MS = 86_400_000;
/** The longest error detail kept in an entry. */
const ERROR_DETAIL_LIMIT = 200;

/** The bounds of caching, seconds. */
export interface CimdCachePolicy {
  minSeconds: number;
  maxSeconds: number;
  staleSeconds: number;
  /** How long the entry of a document that failed and is not held lives (the operator's view). */
  failureSeconds?: number;
  /** The least time between two fetches of a held document whose host failed. */
  retrySeconds?: number;
}

/** Who may make this server fetch a document it does not hold (see the module comment). */
export interface CimdBudgets {
  /** Keyed by the requesting address (`addressKey`). */
  perAddress: RateLimiterAbstract;
  /** Keyed by the requesting address and the document's host name: {@link hostShare} of `perHost`. */
  perAddressOnHost: RateLimiterAbstract;
  /** Keyed by the document's host name. */
  perHost: RateLimiterAbstract;
}

/** The most of a host's first-fetch budget one address may spend: a tenth, at least one. */
export const hostShare = (perHost: number): number => Math.max(1, Math.ceil(perHost / 10));

/** When a document fetched at `now` with these cache headers stops being fresh, then servable, ms. */
export function cacheWindow(policy: CimdCachePolicy, maxAgeSeconds: number | undefined, now: number) {
  const { minSeconds, maxSeconds, staleSeconds } = policy;
  const seconds = Math.min(maxSeconds, Math.max(minSeconds, maxAgeSeconds ?? minSeconds));
  const freshUntil = now + seconds * 1000;
  return { seconds, freshUntil, staleUntil: freshUntil + staleSeconds * 1000 };
}

/** What the client is told of any document that could not be fetched (the detail is logged). */
const unusable = () =>
  new errors.InvalidClient('the client_id metadata document could not be fetched; try again later');

/** What one resolution did, for the log. */
export interface CimdOutcome {
  clientId: string;
  status: CimdStatus;
  error?: string;
  /** What a fresh document listed that the client does not get (its https URIs included when not allowed). */
  dropped?: DroppedValue[];
}

/** Every state a document can be in, as operators see it. */
export const CIMD_STATUSES = ['fresh', 'stale', 'failed', 'invalid'] as const;

/** The state of a document as operators see it. */
export type CimdStatus = (typeof CIMD_STATUSES)[number];

/** A document's cache entry in Redis. */
interface Entry {
  doc?: string;
  /** Not before this (ms) is a held document's failing host tried again. */
  retryAt?: string;
  /** When the `Client:<url>` record was first stored, Unix seconds. */
  issuedAt?: string;
  freshUntil?: string;
  staleUntil?: string;
}

/** Resolves metadata-document client ids (see the module comment). */
export class CimdResolver {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly fetchDocument: (url: string) => Promise<FetchedDocument>,
    private readonly policy: CimdCachePolicy,
    private readonly budgets: CimdBudgets,
    private readonly log: (outcome: CimdOutcome) => void = () => undefined,
    private readonly devicePairing: DevicePairingMode = 'off',
  ) {}

  private readonly observers: ((outcome: CimdOutcome) => void)[] = [];

  /** Calls `observer` with every fetch outcome from now on (the metrics count them: http/metrics.ts). */
  observe(observer: (outcome: CimdOutcome) => void): void {
    this.observers.push(observer);
  }

  private report(outcome: CimdOutcome): void {
    this.log(outcome);
    for (const observer of this.observers) observer(outcome);
  }

  /**
   * The client named by the document at `url`, as stored client metadata; throws `invalid_client`,
   * or {@link TooManyRequests} when a first fetch is over a budget. `requester`: the requesting
   * address's key, for the first-fetch budget (absent for the server's own lookups, which spend only
   * the host's).
   */
  async resolve(url: string, requester?: string): Promise<ClientMetadata> {
    const key = cimdEntryKey(this.prefix, url);
    const recordKey = modelKey(this.prefix, 'Client', url);
    const [entry, allowed, stored] = await Promise.all([
      this.redis.hgetall(key) as Promise<Entry>,
      this.redis.sismember(cimdAllowedKey(this.prefix), url),
      this.redis.exists(recordKey),
    ]);
    const now = Date.now();
    const cached = (doc: string) =>
      this.withRecord(url, JSON.parse(doc) as MetadataDocument, allowed === 1, entry, stored === 1);
    if (entry.doc && now < Number(entry.freshUntil)) return cached(entry.doc);
    const servable = !!entry.doc && now < Number(entry.staleUntil);
    if (entry.doc && now < Number(entry.retryAt ?? 0)) {
      if (servable) return cached(entry.doc);
      throw unusable();
    }
    if (!entry.doc) await this.spendFirstFetch(url, requester);
    let fetched: FetchedDocument;
    try {
      fetched = await this.fetchDocument(url);
    } catch (err) {
      const failure =
        err instanceof DocumentFetchError ? err : new DocumentFetchError('unreachable', String(err));
      if (failure.beforeConnecting) {
        this.report({ clientId: url, status: 'failed', error: failure.message });
        throw unusable();
      }
      if (failure.kind === 'unreachable' && entry.doc) {
        await this.recordHeld(key, url, servable ? 'stale' : 'failed', failure.message, now);
        if (servable) return cached(entry.doc);
        throw unusable();
      }
      await this.recordFailure(key, url, 'failed', failure.message, now);
      throw unusable();
    }
    let doc: MetadataDocument;
    let dropped: DroppedValue[];
    try {
      ({ doc, dropped } = checkDocument(url, fetched.body));
    } catch (err) {
      const why = (err as errors.OIDCProviderError).error_description ?? '';
      await this.recordFailure(key, url, 'invalid', why, now);
      throw err;
    }
    const { freshUntil, staleUntil } = cacheWindow(this.policy, fetched.maxAgeSeconds, now);
    await this.redis
      .multi()
      .hset(key, {
        doc: JSON.stringify(doc),
        dropped: JSON.stringify(dropped),
        freshUntil,
        staleUntil,
        status: 'fresh',
        checkedAt: now,
        fetchedAt: now,
      })
      .hdel(key, 'error', 'retryAt')
      .pexpireat(key, staleUntil + DAY_MS)
      .exec();
    const notAllowed = unusableForUse(doc, { allowed: allowed === 1, devicePairing: this.devicePairing });
    this.report({ clientId: url, status: 'fresh', dropped: [...dropped, ...notAllowed] });
    // May refuse its redirect URIs: the document stays cached all the same.
    return this.withRecord(url, doc, allowed === 1, entry, stored === 1, true);
  }

  /**
   * Spends the budgets of a first fetch: the requester's, its share of the host's, then the host's;
   * throws when one is out (the later ones are then not spent).
   */
  private async spendFirstFetch(url: string, requester: string | undefined): Promise<void> {
    const host = new URL(url).hostname;
    try {
      if (requester !== undefined) {
        await this.budgets.perAddress.consume(requester);
        await this.budgets.perAddressOnHost.consume(`${requester} ${boundedKeyPart(host)}`);
      }
      await this.budgets.perHost.consume(boundedKeyPart(host));
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      const retryAfter = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      this.report({ clientId: url, status: 'failed', error: 'first-fetch budget spent' });
      throw new TooManyRequests(
        `too many new client_id metadata documents just now; retry after ${retryAfter} s`,
        retryAfter,
      );
    }
  }

  /**
   * The client of `doc`, also stored as `Client:<url>` when that record is missing (first use, or
   * removed by an operator or the sweep: its new tokens would read as gone) or `rewrite` says so (a
   * fresh fetch). `client_id_issued_at` is when this record was first stored, so the lifecycle sweep
   * removes a document client that is never used as it removes a registered one.
   */
  private async withRecord(
    url: string,
    doc: MetadataDocument,
    httpsAllowed: boolean,
    entry: Entry,
    stored: boolean,
    rewrite = false,
  ): Promise<ClientMetadata> {
    const issuedAt = stored && entry.issuedAt ? Number(entry.issuedAt) : Math.floor(Date.now() / 1000);
    const metadata = {
      ...toClientMetadata(doc, { allowed: httpsAllowed, devicePairing: this.devicePairing }),
      client_id_issued_at: issuedAt,
    };
    if (!stored || rewrite) {
      // Two commands, not one MULTI: the entry and the record are in different hash slots (the slot
      // rule, redis-keys.ts). The entry's time goes first, so an interruption leaves the record
      // missing, which the next resolution stores again.
      await this.redis.hset(cimdEntryKey(this.prefix, url), 'issuedAt', issuedAt);
      await this.redis.set(modelKey(this.prefix, 'Client', url), JSON.stringify(metadata));
    }
    return metadata;
  }

  /** Records a failed refresh of a document that is kept (served stale while `status` is `stale`). */
  private async recordHeld(key: string, url: string, status: CimdStatus, error: string, now: number) {
    const retryAt = now + (this.policy.retrySeconds ?? 0) * 1000;
    await this.redis.hset(key, {
      status,
      error: error.slice(0, ERROR_DETAIL_LIMIT),
      checkedAt: now,
      retryAt,
    });
    this.report({ clientId: url, status, error });
  }

  /**
   * Records a fetch that gave no usable document: any document held is forgotten (its host refused
   * or served an invalid one), and the entry lives `failureSeconds` for the operator's view.
   */
  private async recordFailure(key: string, url: string, status: CimdStatus, error: string, now: number) {
    const lifeMs = (this.policy.failureSeconds ?? 600) * 1000;
    await this.redis
      .multi()
      .hset(key, { status, error: error.slice(0, ERROR_DETAIL_LIMIT), checkedAt: now })
      .hdel(key, 'doc', 'dropped', 'freshUntil', 'staleUntil', 'retryAt')
      .pexpire(key, lifeMs)
      .exec();
    this.report({ clientId: url, status, error });
  }
}
