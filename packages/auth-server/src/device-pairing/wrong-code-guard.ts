/**
 * Wrong user codes on the device pairing page, limited per account and per address (an IPv6 client
 * by its /64), counted in Redis with rate-limiter-flexible as the sign-in throttle is
 * (accounts/login-guard.ts): each attempt takes a point from both allowances before its code is looked
 * up (one atomic increment each, so a burst cannot all read a count below the limit), and a right code
 * gives them back. A code is 8 letters of 20, so even the address allowance leaves guessing one
 * hopeless; the limits stop a flood from turning the page into an oracle.
 */
import type { RedisClient } from '@school/shared';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { addressKey } from '../client-address.js';

/** The allowances. */
export interface WrongCodeSettings {
  perAccount: number;
  perAddress: number;
  windowSeconds: number;
}

/** Seconds until `take` would be allowed again, 0 when it was taken. */
async function refusal(take: Promise<unknown>): Promise<number> {
  try {
    await take;
    return 0;
  } catch (err) {
    if (err instanceof RateLimiterRes) return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
    return 0; // Redis unreachable: the code lookup reports the outage itself
  }
}

/** The wrong-code throttle of the pairing page. */
export class WrongCodeGuard {
  private readonly byAccount: RateLimiterRedis;
  private readonly byAddress: RateLimiterRedis;

  constructor(redis: RedisClient, prefix: string, settings: WrongCodeSettings) {
    const make = (name: string, points: number) =>
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${prefix}rl:device-code-${name}`,
        points,
        duration: settings.windowSeconds,
      });
    this.byAccount = make('account', settings.perAccount);
    this.byAddress = make('addr', settings.perAddress);
  }

  /** Takes an attempt from both allowances; seconds it is refused for, or 0. */
  async before(accountId: string, ip: string): Promise<number> {
    const account = await refusal(this.byAccount.consume(accountId));
    if (account) return account;
    const address = await refusal(this.byAddress.consume(addressKey(ip)));
    if (address) await this.byAccount.reward(accountId, 1).catch(() => undefined);
    return address;
  }

  /** The code was right: the attempt does not count. */
  async right(accountId: string, ip: string): Promise<void> {
    await Promise.all([this.byAccount.reward(accountId, 1), this.byAddress.reward(addressKey(ip), 1)]).catch(
      () => undefined,
    );
  }
}
