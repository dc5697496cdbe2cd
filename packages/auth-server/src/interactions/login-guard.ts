/**
 * Brute-force protection for the login form, in Redis so it holds across instances:
 * - per account (the normalised email, whether or not such an account exists, so the answer never
 *   reveals which emails are real): after `maxFailuresPerAccount` failures in the window, sign-in for
 *   that email is refused until the window ends;
 * - per address: after `maxFailuresPerAddress` failures in the window, that address is refused;
 * - progressive delay: from the third failure on an account, each further failed answer waits
 *   longer (250 ms doubling, at most 4 s), which slows guessing without locking out the owner early.
 * A successful sign-in clears the account's count.
 */
import type { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';

/** Login limits. */
export interface LoginGuardSettings {
  maxFailuresPerAccount: number;
  maxFailuresPerAddress: number;
  windowSeconds: number;
}

/** Tracks failed sign-ins per account and per address. */
export class LoginGuard {
  private readonly byAccount: RateLimiterRedis;
  private readonly byAddress: RateLimiterRedis;

  constructor(redis: Redis, prefix: string, settings: LoginGuardSettings) {
    const make = (name: string, points: number) =>
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${prefix}rl:login-${name}`,
        points,
        duration: settings.windowSeconds,
      });
    this.byAccount = make('account', settings.maxFailuresPerAccount);
    this.byAddress = make('addr', settings.maxFailuresPerAddress);
  }

  private static account(email: string): string {
    return email.trim().toLowerCase();
  }

  /** Seconds until sign-in may be tried again for this email or address, or 0 when allowed now. */
  async blockedFor(email: string, ip: string): Promise<number> {
    const [account, address] = await Promise.all([
      this.byAccount.get(LoginGuard.account(email)),
      this.byAddress.get(ip),
    ]);
    const waits = [account, address]
      .filter((r) => r && r.remainingPoints <= 0)
      .map((r) => Math.ceil(r!.msBeforeNext / 1000));
    return waits.length ? Math.max(1, ...waits) : 0;
  }

  /** Records a failure; returns how long to hold the answer (ms). */
  async failed(email: string, ip: string): Promise<number> {
    const [account] = await Promise.all([
      this.byAccount.penalty(LoginGuard.account(email)),
      this.byAddress.penalty(ip),
    ]);
    const failures = account.consumedPoints;
    return failures >= 3 ? Math.min(250 * 2 ** (failures - 3), 4000) : 0;
  }

  /** Clears the account's failures after a successful sign-in. */
  async succeeded(email: string): Promise<void> {
    await this.byAccount.delete(LoginGuard.account(email));
  }
}
