/**
 * Brute-force protection for the login form, in Redis so it holds across instances (
 * finding 2: an attacker's failures must slow the attacker, not lock the owner out).
 *
 * Nothing counted per account alone ever refuses: ten wrong passwords for an email from anywhere used
 * to refuse that email for the whole window, before its password was checked, so anyone who knew the
 * admin's email could keep the admin out for good. Now:
 * - per address (`addressKey`: IPv4 as is, IPv6 by its /64): after `maxFailuresPerAddress` failures
 *   within the window, that address is refused (429, Retry-After), for every email;
 * - per account and address: after `maxFailuresPerAccountAndAddress` failures of one email from one
 *   address, that pair is refused; the same email from any other address is unaffected. From the
 *   pair's third failure on, each failed answer is also held back (250 ms doubling, at most 4 s);
 * - per account, from all addresses: only a small, bounded delay. Once an email has had
 *   `accountDelayAfter` failures within the window, every attempt for it waits `accountDelayMs` before
 *   the password is checked (the answer, right or wrong, comes no sooner, so it cannot be told apart
 *   early), and crossing that count is reported once per window as an attack, with the addresses the
 *   failures came from (the most active `REPORTED_ADDRESSES` of them).
 * The address and pair counts are taken before the password is checked, atomically in Redis, and
 * given back when it is right ({@link LoginGuard.before}), so simultaneous attempts cannot get more
 * checks than the limits allow.
 * Every count is kept per normalised email whether or not such an account exists, so neither answers
 * nor timings reveal which emails are real. A successful sign-in clears its pair's count only: the
 * owner signing in does not reset an attacker's account-wide or address counts.
 *
 * An admin (Staff accounts, `school-auth accounts unlock`) can {@link LoginGuard.unlock} an email:
 * that clears everything held for it — its pair counts from every address its failures came from,
 * its account-wide count (the delay) and that list of addresses — but not an address's own count,
 * which is about everyone signing in from there.
 */
import type { RedisClient } from '@school/shared';
import { RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';
import { addressKey } from '../client-address.js';
import type { StorageConfig } from '../config.js';
import { boundedKeyPart } from '../storage/redis-keys.js';

/** Login limits. */
export interface LoginGuardSettings {
  /** Failures of one email from one address within the window before that pair is refused. */
  maxFailuresPerAccountAndAddress: number;
  /** Failures from one address (any emails) within the window before that address is refused. */
  maxFailuresPerAddress: number;
  /** Failures of one email from all addresses within the window after which attempts are delayed. */
  accountDelayAfter: number;
  /** The delay, ms (bounded by the config schema: a small delay, never a lockout). */
  accountDelayMs: number;
  windowSeconds: number;
}

/** What to do before checking a password. */
export interface LoginVerdict {
  /** Seconds until this address (or this email from it) may try again; 0 when it may now. */
  refusedForSeconds: number;
  /** Which allowance refused: this email from this address (`account`), or the address (`address`). */
  refusedBy?: 'account' | 'address';
  /** How long to wait before checking the password (the account-wide delay), ms. */
  delayMs: number;
}

/** An account crossing its failure count: what the audit log records. */
export interface SuspectedAttack {
  failures: number;
  windowSeconds: number;
  /** The addresses the failures came from, most failures first (at most REPORTED_ADDRESSES). */
  addresses: Array<{ address: string; failures: number }>;
}

/** What the guard holds against one email now (Staff accounts shows it; unlock clears it). */
export interface AccountLockState {
  /** The addresses this email is refused from now. */
  lockedFrom: string[];
  /** Failed sign-ins for this email within the window, from all addresses. */
  failures: number;
  /** True when every attempt for this email waits the account-wide delay. */
  delayed: boolean;
}

/** How many addresses an attack report names, and how many per account are remembered. */
const REPORTED_ADDRESSES = 20;
const REMEMBERED_ADDRESSES = 1000;

/** Tracks failed sign-ins per address, per account and address, and per account. */
export class LoginGuard {
  private readonly byAddress: RateLimiterRedis;
  private readonly byPair: RateLimiterRedis;
  private readonly byAccount: RateLimiterRedis;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly settings: LoginGuardSettings,
  ) {
    const make = (name: string, points: number) =>
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${prefix}rl:login-${name}`,
        points,
        duration: settings.windowSeconds,
      });
    this.byAddress = make('addr', settings.maxFailuresPerAddress);
    this.byPair = make('account-addr', settings.maxFailuresPerAccountAndAddress);
    // Never refuses: only its count is read (the points bound nothing).
    this.byAccount = make('account', Number.MAX_SAFE_INTEGER);
  }

  /** An email as a part of the guard's keys: one account one key, bounded (storage/redis-keys.ts). */
  private static account(email: string): string {
    return boundedKeyPart(email.trim().toLowerCase() || '(empty)');
  }

  private static pair(email: string, address: string): string {
    return `${address}|${LoginGuard.account(email)}`;
  }

  private addressesKey(email: string): string {
    return `${this.prefix}login:failed-from:${LoginGuard.account(email)}`;
  }

  /**
   * Takes this attempt from the pair's and the address's allowances before its password is checked,
   * and says whether it is refused (and for how long), else how long to wait before checking it.
   *
   * Each take is one atomic increment-and-compare in Redis (rate-limiter-flexible's `consume`), so
   * attempts arriving together cannot all read a count below the limit: at most the limit of them
   * are let through to the password check. The pair is taken first and the address only for an
   * attempt the pair lets through; an attempt the address then refuses gives its pair point back,
   * so a refused attempt never counts against a limit it was not refused by. A successful check
   * gives the points back ({@link succeeded}); a failed one keeps them ({@link failed}).
   */
  async before(email: string, ip: string): Promise<LoginVerdict> {
    const address = addressKey(ip);
    const pair = LoginGuard.pair(email, address);
    const pairRefusal = await refusal(this.byPair.consume(pair));
    if (pairRefusal) return { refusedForSeconds: pairRefusal, refusedBy: 'account', delayMs: 0 };
    const addressRefusal = await refusal(this.byAddress.consume(address));
    if (addressRefusal) {
      await this.byPair.reward(pair, 1);
      return { refusedForSeconds: addressRefusal, refusedBy: 'address', delayMs: 0 };
    }
    const byAccount = await this.byAccount.get(LoginGuard.account(email));
    const failures = byAccount?.consumedPoints ?? 0;
    return {
      refusedForSeconds: 0,
      delayMs: failures >= this.settings.accountDelayAfter ? this.settings.accountDelayMs : 0,
    };
  }

  /**
   * Records a failure of an attempt {@link before} let through (its pair and address points stay
   * taken). Returns how long to hold the answer (ms), and the attack report when this failure is the
   * one that takes the account to `accountDelayAfter` within the window.
   */
  async failed(email: string, ip: string): Promise<{ delayMs: number; attack?: SuspectedAttack }> {
    const address = addressKey(ip);
    const key = this.addressesKey(email);
    const [pair, account] = await Promise.all([
      this.byPair.get(LoginGuard.pair(email, address)),
      this.byAccount.penalty(LoginGuard.account(email)),
      this.redis
        .multi()
        .zincrby(key, 1, address)
        .zremrangebyrank(key, 0, -REMEMBERED_ADDRESSES - 1)
        .expire(key, this.settings.windowSeconds)
        .exec(),
    ]);
    const n = pair?.consumedPoints ?? 0;
    const delayMs = n >= 3 ? Math.min(250 * 2 ** (n - 3), 4000) : 0;
    if (account.consumedPoints !== this.settings.accountDelayAfter) return { delayMs };
    const ranked = await this.redis.zrevrange(key, 0, REPORTED_ADDRESSES - 1, 'WITHSCORES');
    const addresses = [];
    for (let i = 0; i + 1 < ranked.length; i += 2)
      addresses.push({ address: ranked[i]!, failures: Number(ranked[i + 1]) });
    return {
      delayMs,
      attack: { failures: account.consumedPoints, windowSeconds: this.settings.windowSeconds, addresses },
    };
  }

  /** What is held against `email` now. */
  async lockState(email: string): Promise<AccountLockState> {
    const addresses = await this.redis.zrange(this.addressesKey(email), '0', '-1');
    const [pairs, account] = await Promise.all([
      Promise.all(addresses.map((a) => this.byPair.get(LoginGuard.pair(email, a)))),
      this.byAccount.get(LoginGuard.account(email)),
    ]);
    const failures = account?.consumedPoints ?? 0;
    return {
      lockedFrom: addresses.filter((_, i) => (pairs[i]?.remainingPoints ?? 1) <= 0),
      failures,
      delayed: failures >= this.settings.accountDelayAfter,
    };
  }

  /** Clears everything held against `email` (see the module comment); returns what was held. */
  async unlock(email: string): Promise<AccountLockState> {
    const held = await this.lockState(email);
    const addresses = await this.redis.zrange(this.addressesKey(email), '0', '-1');
    await Promise.all([
      ...addresses.map((a) => this.byPair.delete(LoginGuard.pair(email, a))),
      this.byAccount.delete(LoginGuard.account(email)),
      this.redis.del(this.addressesKey(email)),
    ]);
    return held;
  }

  /**
   * After a successful check: gives the attempt's address point back and clears this email's
   * failures from this address (never the account-wide count: see the module comment).
   */
  async succeeded(email: string, ip: string): Promise<void> {
    const address = addressKey(ip);
    await Promise.all([
      this.byAddress.reward(address, 1),
      this.byPair.delete(LoginGuard.pair(email, address)),
    ]);
  }
}

/**
 * Waits for a `consume`: 0 when it took its point, else the seconds until the limiter allows again
 * (at least 1). A store error is thrown, never taken as either answer.
 */
async function refusal(consumed: Promise<RateLimiterRes>): Promise<number> {
  try {
    await consumed;
    return 0;
  } catch (err) {
    if (err instanceof Error) throw err;
    return Math.max(1, Math.ceil((err as RateLimiterRes).msBeforeNext / 1000));
  }
}

/** The login guard of a server configured by `config` (the server and `school-auth` share it). */
export function loginGuardFor(redis: RedisClient, config: StorageConfig): LoginGuard {
  return new LoginGuard(redis, config.REDIS_KEY_PREFIX, {
    maxFailuresPerAccountAndAddress: config.LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS,
    maxFailuresPerAddress: config.LOGIN_MAX_FAILURES_PER_ADDRESS,
    accountDelayAfter: config.LOGIN_ACCOUNT_DELAY_AFTER,
    accountDelayMs: config.LOGIN_ACCOUNT_DELAY_MS,
    windowSeconds: config.LOGIN_WINDOW,
  });
}
