/**
 * How often an account may make new recovery codes: {@link RECOVERY_CODE_SETS_PER_HOUR} sets per
 * hour, counted in Redis (rate-limiter-flexible, as the sign-in throttle) so it holds across every
 * instance. Each set is ten argon2id hashes and replaces the codes written down before: more than a
 * few an hour is never a person, and each would cost the server ten hashes.
 */
import type { RedisClient } from '@school/shared';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/** The sets of recovery codes one account may make per hour. */
export const RECOVERY_CODE_SETS_PER_HOUR = 3;

/** The per-account budget of recovery-code sets. */
export class RecoveryCodeBudget {
  private readonly limiter: RateLimiterRedis;

  constructor(redis: RedisClient, prefix: string) {
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}rl:recovery-codes`,
      points: RECOVERY_CODE_SETS_PER_HOUR,
      duration: 60 * 60,
    });
  }

  /** Takes one set from `accountId`'s budget: 0 when it may make one now, else the seconds to wait. */
  async take(accountId: string): Promise<number> {
    try {
      await this.limiter.consume(accountId);
      return 0;
    } catch (err) {
      if (err instanceof RateLimiterRes) return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      throw err;
    }
  }
}
