/**
 * Keeps one address from filling the audit log. Every refusal a flood causes (a 429, a failed sign-in,
 * a locked account) is an audit event, and each event is a stdout line and a MongoDB document kept for
 * the retention period: without a bound, a stranger sending requests as fast as the rate limiter
 * refuses them writes the audit log as fast, and buries the events an admin looks for on Activity.
 *
 * So per process, at most `perMinute` events of one type from one address are logged and stored in
 * any minute (a fixed window starting at that key's first event); the rest still reach the observers
 * (the metrics count every one). The first event over the bound writes one warning saying so. Events
 * without an address (operator commands, sweeps) are never held back.
 */
import { LRUCache } from 'lru-cache';

/** Per-(type, address) window counts; see the module comment. */
export class AuditFloodGuard {
  private readonly counts: LRUCache<string, { n: number }>;

  constructor(
    private readonly perMinute: number,
    maxTracked = 10_000,
  ) {
    this.counts = new LRUCache({ max: maxTracked, ttl: 60_000, ttlAutopurge: false });
  }

  /**
   * Counts an event of `type` from `ip`: `store` when it is within the bound, `first-over` for the
   * first one past it in this window (to warn about once), `over` for the rest.
   */
  admit(type: string, ip: string | undefined): 'store' | 'first-over' | 'over' {
    if (!ip) return 'store';
    const key = `${type}\u0000${ip}`;
    const entry = this.counts.get(key);
    if (!entry) {
      this.counts.set(key, { n: 1 });
      return 'store';
    }
    entry.n += 1; // same object: the window keeps the TTL its first event started
    if (entry.n <= this.perMinute) return 'store';
    return entry.n === this.perMinute + 1 ? 'first-over' : 'over';
  }
}
