/**
 * Decides whether a bearer token is good for this API, introspecting as rarely as is safe.
 *
 * - Positive cache: an LRU of active introspection results keyed by SHA-256(token) (the token itself
 *   is never stored), each kept for min(exp - now, the configured bound). The bound is the
 *   revocation-delay budget should a pub/sub message be lost (RFC 7662 §4).
 * - Negative cache: a separate, small LRU of inactive results for a few seconds, so a flood of junk
 *   tokens cannot evict good entries nor hammer the auth server.
 * - Single flight: concurrent misses for one token share one introspection call.
 * - Revocation: {@link TokenVerifier.evict} (fed by the Redis subscription) drops the entries and
 *   remembers the hashes for the bound, so an introspection already in flight cannot put a revoked
 *   token back into the cache.
 * - Acceptance: `active`, an access token (`token_type` Bearer, or DPoP with the key's thumbprint in
 *   `cnf.jkt`; a refresh token has no `token_type`), not past `exp`, and `aud` absent or naming this
 *   API (audience.ts); its scopes are the well-formed tokens of `scope` (scope.ts). A DPoP-bound
 *   token's principal carries `jkt`: the bearer middleware then asks for a proof of that key with
 *   every call (dpop-proof.ts), which no cache stands in for.
 */
import { tokenHash } from '@school/shared';
import { LRUCache } from 'lru-cache';
import { audienceAccepts } from './audience.js';
import type { Introspection, Introspector } from './introspection-client.js';
import { parseScope } from './scope.js';
import type { TokenPrincipal } from '../lib/caller.js';

/** What a good token tells the API about the caller. */
/** The verdict on one token. */
export type Verdict = { ok: true; principal: TokenPrincipal } | { ok: false; reason: string };

/** Options of {@link TokenVerifier}. */
export interface TokenVerifierOptions {
  /** This API's resource identifier (`BASE_URL`). */
  resource: string;
  /** Upper bound on caching an active result, seconds. */
  ttlSeconds: number;
  size: number;
  negativeTtlSeconds: number;
  negativeSize: number;
}

const INACTIVE = 'the access token is invalid, expired or revoked';

/** An introspection answer as the cache keeps it: its expiry and what it decides. */
interface Checked {
  /** Seconds since the epoch. */
  exp?: number;
  verdict: Verdict;
}

/**
 * Everything about an introspection answer that cannot change while it is cached, decided once (the
 * principal with its parsed scopes included), so a cache hit costs a lookup and an expiry check.
 */
function verdictOf(info: Introspection, resource: string): Verdict {
  if (!info.active) return { ok: false, reason: INACTIVE };
  const dpop = info.token_type?.toLowerCase() === 'dpop';
  if (dpop && typeof info.cnf?.jkt !== 'string') {
    return { ok: false, reason: 'a DPoP token without a key binding (cnf.jkt) is not accepted' };
  }
  if (info.token_type !== undefined && !dpop && info.token_type.toLowerCase() !== 'bearer') {
    return { ok: false, reason: `a ${info.token_type} token is not a bearer access token` };
  }
  if (info.token_type === undefined) {
    return { ok: false, reason: 'only access tokens are accepted (this looks like a refresh token)' };
  }
  if (!audienceAccepts(info.aud, resource)) {
    return { ok: false, reason: 'the access token is bound to another resource (aud)' };
  }
  const principal: TokenPrincipal = Object.freeze({
    kind: 'token',
    sub: info.sub,
    clientId: info.client_id,
    scopes: parseScope(info.scope),
    exp: info.exp,
    ...(dpop ? { jkt: info.cnf!.jkt } : {}),
  });
  return { ok: true, principal };
}

/**
 * What the verifier has done since it started, as plain counts (the metrics read them at scrape time,
 * so a token check costs an increment, not a metrics call).
 */
export interface VerifierCounts {
  /** Checks by where the verdict came from: the positive cache, the negative cache, the revoked list,
   *  or an introspection (a miss; concurrent misses for one token share one call). */
  lookups: { hit: number; negative_hit: number; revoked: number; miss: number };
  /** Introspection calls by answer. */
  introspections: { active: number; inactive: number; error: number };
  /** Revoked token hashes received from the feed. */
  revocations: number;
}

/** An answer that arrived after its token was revoked: refused, whatever it said. */
const REVOKED_MEANWHILE: Checked = { verdict: { ok: false, reason: INACTIVE } };

/** Token checking with the caches described above. */
export class TokenVerifier {
  private readonly positive: LRUCache<string, Checked>;
  private readonly negative: LRUCache<string, true>;
  private readonly revoked: LRUCache<string, true>;
  private readonly inflight = new Map<string, Promise<Checked>>();
  /** See {@link VerifierCounts}. */
  readonly counts: VerifierCounts = {
    lookups: { hit: 0, negative_hit: 0, revoked: 0, miss: 0 },
    introspections: { active: 0, inactive: 0, error: 0 },
    revocations: 0,
  };

  constructor(
    private readonly introspector: Introspector,
    private readonly options: TokenVerifierOptions,
  ) {
    this.positive = new LRUCache({ max: options.size, ttl: options.ttlSeconds * 1000 });
    this.negative = new LRUCache({ max: options.negativeSize, ttl: options.negativeTtlSeconds * 1000 });
    this.revoked = new LRUCache({ max: Math.max(options.size, 1000), ttl: options.ttlSeconds * 1000 });
  }

  /**
   * Checks a token; throws only when the auth server cannot answer (AuthServerUnavailableError).
   * `requestId` goes with an introspection this check makes (concurrent checks of one token share
   * the first one's call, and so its id).
   */
  async verify(token: string, requestId?: string): Promise<Verdict> {
    const key = tokenHash(token);
    const lookups = this.counts.lookups;
    if (this.revoked.has(key)) {
      lookups.revoked++;
      return { ok: false, reason: 'the access token has been revoked' };
    }
    const cached = this.positive.get(key);
    if (cached) {
      lookups.hit++;
      return this.judge(key, cached);
    }
    if (this.negative.has(key)) {
      lookups.negative_hit++;
      return { ok: false, reason: INACTIVE };
    }
    lookups.miss++;
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.lookup(key, token, requestId);
      this.inflight.set(key, pending);
      const done = () => this.inflight.delete(key);
      pending.then(done, done);
    }
    return this.judge(key, await pending);
  }

  private async lookup(key: string, token: string, requestId?: string): Promise<Checked> {
    const introspections = this.counts.introspections;
    const result = await this.introspector.introspect(token, requestId).catch((err: unknown) => {
      introspections.error++;
      throw err;
    });
    introspections[result.active ? 'active' : 'inactive']++;
    if (this.revoked.has(key)) return REVOKED_MEANWHILE;
    const checked: Checked = {
      exp: result.active ? result.exp : undefined,
      verdict: verdictOf(result, this.options.resource),
    };
    if (!result.active) {
      this.negative.set(key, true);
      return checked;
    }
    const remainingMs = result.exp === undefined ? Infinity : result.exp * 1000 - Date.now();
    const ttl = Math.min(remainingMs, this.options.ttlSeconds * 1000);
    if (ttl > 0) this.positive.set(key, checked, { ttl: Math.floor(ttl) });
    return checked;
  }

  /** The verdict on a cached or fresh answer; only its expiry is checked again on every use. */
  private judge(key: string, checked: Checked): Verdict {
    if (checked.exp !== undefined && checked.exp * 1000 <= Date.now()) {
      this.positive.delete(key);
      return { ok: false, reason: 'the access token has expired' };
    }
    return checked.verdict;
  }

  /** Drops revoked tokens (by SHA-256 hex) and refuses them from now on. */
  evict(hashes: readonly string[]): void {
    this.counts.revocations += hashes.length;
    for (const h of hashes) {
      this.positive.delete(h);
      this.revoked.set(h, true);
    }
  }

  /** Forgets every cached active result (after a gap in the revocation feed). */
  clear(): void {
    this.positive.clear();
  }

  /** Entries currently cached, for health output and tests. */
  get size(): { positive: number; negative: number } {
    return { positive: this.positive.size, negative: this.negative.size };
  }
}
