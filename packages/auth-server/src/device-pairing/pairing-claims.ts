/**
 * Who a device code belongs to once a person has entered it, and the one code each account has
 * pending (docs/decisions.md):
 *
 * - A code is tied to nobody until a signed-in person enters it; the first account to enter it claims
 *   it (one `SET NX`, so two accounts entering it at once cannot both win), and from then on only that
 *   account may see, approve or deny it. Another account entering it is refused.
 * - An account has at most one pending pairing: entering a second code replaces the first, which is
 *   denied (its device gets `access_denied`), so a person is never looking at two requests at once and
 *   an earlier code cannot be approved by mistake later.
 *
 * Both records live as long as the code.
 */
import type { RedisClient } from '@school/shared';
import { deviceClaimKey, devicePendingKey } from '../storage/redis-keys.js';

/** The claims and pending pairings in Redis. */
export class PairingClaims {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  /** Claims `codeId` for `accountId` unless another account did first; the account it belongs to. */
  async claim(codeId: string, accountId: string, seconds: number): Promise<string> {
    const key = deviceClaimKey(this.prefix, codeId);
    const won = await this.redis.set(key, accountId, 'EX', Math.max(1, seconds), 'NX');
    return won ? accountId : ((await this.redis.get(key)) ?? accountId);
  }

  /** The account that claimed `codeId`, if any. */
  async owner(codeId: string): Promise<string | undefined> {
    return (await this.redis.get(deviceClaimKey(this.prefix, codeId))) ?? undefined;
  }

  /** Makes `codeId` the account's pending pairing; the one it replaces, if another. */
  async replacePending(accountId: string, codeId: string, seconds: number): Promise<string | undefined> {
    const key = devicePendingKey(this.prefix, accountId);
    const [[, before] = []] =
      (await this.redis.multi().get(key).set(key, codeId, 'EX', Math.max(1, seconds)).exec()) ?? [];
    return typeof before === 'string' && before !== codeId ? before : undefined;
  }

  /** Ends the account's pending pairing if it is `codeId`. */
  async clearPending(accountId: string, codeId: string): Promise<void> {
    const key = devicePendingKey(this.prefix, accountId);
    if ((await this.redis.get(key)) === codeId) await this.redis.del(key);
  }
}
