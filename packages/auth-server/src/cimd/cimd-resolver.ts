/**
 * A `client_id` that is a Client ID Metadata Document URL, resolved into the client oidc-provider
 * loads. The Redis adapter's `Client` find calls {@link CimdResolver.resolve} for such ids, so every
 * endpoint (authorization, token, revocation, introspection, the consent page) sees the same client.
 *
 * Caching, shared by every instance through Redis (`cimd:<url>`, redis-keys.ts):
 * - A valid document is reused for as long as its `Cache-Control`/`Expires` say, within a floor and a
 *   ceiling (CIMD_CACHE_MIN_SECONDS, CIMD_CACHE_MAX_SECONDS).
 * - A failed fetch and an invalid document are never cached: the next request fetches again (the
 *   per-host rate limit of the fetcher bounds how often).
 * - While the host fails (unreachable, timeout, 5xx, 429, our rate limit), a document that was valid
 *   is served stale for at most CIMD_STALE_SECONDS past its freshness. A host that answers but
 *   refuses (404, wrong type, ...) or serves an invalid document ends it at once.
 * - Every outcome is recorded in the entry (status, error, times): `school-auth clients cimd` shows it.
 *
 * Why not oidc-provider's own (experimental) `features.clientIdMetadataDocument`: its cache is an
 * in-process LRU of 100 documents (each instance fetches on its own), it has no stale serving and no
 * status anyone can look at, its fetch cannot be given a test CA or our per-host budget, and its
 * clients are not stored, so our token reads (which check that a token's client is stored) would
 * find every token of such a client gone.
 *
 * The resolved client is also stored as a `Client:<url>` record, as registered clients are, because
 * token reads check that a token's client is stored (redis-adapter.ts); it is refreshed on every
 * successful fetch. The operator-allowed list (`cimdAllowed`) decides whether its https redirect URIs
 * count (metadata-document.ts).
 */
import type { RedisClient } from '@school/shared';
import { errors, type ClientMetadata } from 'oidc-provider';
import { cimdAllowedKey, cimdEntryKey, modelKey } from '../storage/redis-keys.js';
import { DocumentFetchError, type FetchedDocument } from './document-fetcher.js';
import { checkDocument, toClientMetadata, type MetadataDocument } from './metadata-document.js';

const DAY_MS = 86_400_000;

/** The bounds of caching, seconds. */
export interface CimdCachePolicy {
  minSeconds: number;
  maxSeconds: number;
  staleSeconds: number;
}

/** What one resolution did, for the log. */
export interface CimdOutcome {
  clientId: string;
  status: CimdStatus;
  error?: string;
}

/** Every state a document can be in, as operators see it. */
export const CIMD_STATUSES = ['fresh', 'stale', 'failed', 'invalid'] as const;

/** The state of a document as operators see it. */
export type CimdStatus = (typeof CIMD_STATUSES)[number];

/** A document's cache entry in Redis. */
interface Entry {
  doc?: string;
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
    private readonly log: (outcome: CimdOutcome) => void = () => undefined,
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

  /** The client named by the document at `url`, as stored client metadata; throws `invalid_client`. */
  async resolve(url: string): Promise<ClientMetadata> {
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
    let fetched: FetchedDocument;
    try {
      fetched = await this.fetchDocument(url);
    } catch (err) {
      const failure =
        err instanceof DocumentFetchError ? err : new DocumentFetchError('unreachable', String(err));
      if (failure.kind === 'unreachable' && entry.doc && now < Number(entry.staleUntil)) {
        await this.record(key, url, 'stale', failure.message, now);
        return cached(entry.doc);
      }
      await this.record(key, url, 'failed', failure.message, now, true);
      throw new errors.InvalidClient(`client_id metadata document could not be fetched: ${failure.message}`);
    }
    let doc: MetadataDocument;
    try {
      doc = checkDocument(url, fetched.body);
    } catch (err) {
      await this.record(
        key,
        url,
        'invalid',
        (err as errors.OIDCProviderError).error_description ?? '',
        now,
        true,
      );
      throw err;
    }
    const { minSeconds, maxSeconds, staleSeconds } = this.policy;
    const maxAge = Math.min(maxSeconds, Math.max(minSeconds, fetched.maxAgeSeconds ?? minSeconds));
    const freshUntil = now + maxAge * 1000;
    const staleUntil = freshUntil + staleSeconds * 1000;
    await this.redis
      .multi()
      .hset(key, {
        doc: JSON.stringify(doc),
        freshUntil,
        staleUntil,
        status: 'fresh',
        checkedAt: now,
        fetchedAt: now,
      })
      .hdel(key, 'error')
      .pexpireat(key, staleUntil + DAY_MS)
      .exec();
    this.report({ clientId: url, status: 'fresh' });
    // May refuse its redirect URIs: the document stays cached all the same.
    return this.withRecord(url, doc, allowed === 1, entry, stored === 1, true);
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
    const metadata = { ...toClientMetadata(doc, httpsAllowed), client_id_issued_at: issuedAt };
    if (!stored || rewrite) {
      // Two commands, not one MULTI: the entry and the record are in different hash slots (the slot
      // rule, redis-keys.ts). The entry's time goes first, so an interruption leaves the record
      // missing, which the next resolution stores again.
      await this.redis.hset(cimdEntryKey(this.prefix, url), 'issuedAt', issuedAt);
      await this.redis.set(modelKey(this.prefix, 'Client', url), JSON.stringify(metadata));
    }
    return metadata;
  }

  /** Records an outcome other than a fresh fetch; `drop` forgets the document (no stale serving). */
  private async record(
    key: string,
    url: string,
    status: CimdStatus,
    error: string,
    now: number,
    drop = false,
  ) {
    const tx = this.redis.multi().hset(key, { status, error, checkedAt: now });
    if (drop) tx.hdel(key, 'doc', 'freshUntil', 'staleUntil');
    await tx.pexpire(key, DAY_MS, 'NX').exec(); // an entry that was never valid goes after a day
    this.report({ clientId: url, status, error });
  }
}
