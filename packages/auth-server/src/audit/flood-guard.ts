/**
 * Keeps one address from filling the audit log, without letting it choose what is forgotten. Every
 * refusal a flood causes (a 429, a failed sign-in, a locked account) is an audit event, and each event
 * is a stdout line and a MongoDB document kept for the retention period: without a bound, a stranger
 * sending requests as fast as the rate limiter refuses them writes the audit log as fast, and buries
 * the events an admin looks for on Activity.
 *
 * So per process, at most `perMinute` events of one type from one address about one account (or
 * about none) are logged and stored one by one in any minute (a fixed window starting at that key's
 * first event). The rest are counted, and the count of each window is stored as one summary event
 * (audit-log.ts) once the window ends: nothing is dropped, only folded. Events about an existing
 * account have a window of their own, so throwaway failures (about no account) can never use up the
 * bound of a guess at a real account; accounts exist only when an admin makes them, so an attacker
 * cannot make up keys of that kind either. Events without an address (operator commands, sweeps)
 * are never held back.
 */

/** Events of one type from one address (about one account, or none) counted instead of stored. */
export interface HeldBackEvents {
  type: string;
  ip: string;
  accountId?: string;
  count: number;
  /** When the window started, and its last counted event. */
  from: Date;
  to: Date;
}

interface Window {
  type: string;
  ip: string;
  accountId?: string;
  start: number;
  /** Events in the window; the ones past the bound, and the last of them. */
  n: number;
  over: number;
  lastOver: number;
}

/** Per-(type, address, account) window counts; see the module comment. */
export class AuditFloodGuard {
  private readonly windows = new Map<string, Window>();
  private ended: HeldBackEvents[] = [];

  constructor(
    private readonly perMinute: number,
    private readonly maxTracked = 10_000,
    private readonly windowMs = 60_000,
  ) {}

  /**
   * Counts an event: `store` when it is within the bound (or has no address), `first-over` for the
   * first one past it in its window (to warn about once), `over` for the rest (counted for the
   * window's summary).
   */
  admit(
    type: string,
    ip: string | undefined,
    accountId?: string,
    now = Date.now(),
  ): 'store' | 'first-over' | 'over' {
    if (!ip) return 'store';
    const key = `${type}\u0000${ip}\u0000${accountId ?? ''}`;
    let window = this.windows.get(key);
    if (window && now - window.start >= this.windowMs) {
      this.end(window);
      this.windows.delete(key);
      window = undefined;
    }
    if (!window) {
      if (this.windows.size >= this.maxTracked) this.endWindows(now, false);
      // Still full: too many addresses at once to track; storing each event forgets nothing.
      if (this.windows.size >= this.maxTracked) return 'store';
      this.windows.set(key, { type, ip, accountId, start: now, n: 1, over: 0, lastOver: now });
      return 'store';
    }
    window.n += 1;
    if (window.n <= this.perMinute) return 'store';
    window.over += 1;
    window.lastOver = now;
    return window.over === 1 ? 'first-over' : 'over';
  }

  /**
   * The counts of the windows that have ended by `now` (with `all`, of every window: their counts
   * start again from zero, their bounds stay spent), each once.
   */
  takeHeldBack(now = Date.now(), all = false): HeldBackEvents[] {
    this.endWindows(now, all);
    const taken = this.ended;
    this.ended = [];
    return taken;
  }

  private endWindows(now: number, all: boolean): void {
    for (const [key, window] of this.windows) {
      if (now - window.start >= this.windowMs) {
        this.end(window);
        this.windows.delete(key);
      } else if (all && window.over > 0) {
        this.end(window);
        window.over = 0;
      }
    }
  }

  private end(window: Window): void {
    if (window.over === 0) return;
    const { type, ip, accountId, over: count } = window;
    this.ended.push({
      type,
      ip,
      ...(accountId ? { accountId } : {}),
      count,
      from: new Date(window.start),
      to: new Date(window.lastOver),
    });
  }
}
