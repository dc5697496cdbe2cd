/**
 * Everything the pages need of passkeys, built once per process: the stored passkeys, the two
 * ceremonies (passkey-ceremonies.ts), recovery codes, and the rule saying whether an account may
 * still sign in with its password.
 */
import type { RedisClient } from '@school/shared';
import type { Connection } from 'mongoose';
import type { AccountStore } from '../accounts/account-store.js';
import { Challenges } from './challenges.js';
import { PasskeyCeremonies } from './passkey-ceremonies.js';
import { PasskeyStore } from './passkey-store.js';
import { RecoveryCodes } from './recovery-codes.js';

/** Passkeys, recovery codes and the password rule. */
export interface Passkeys {
  store: PasskeyStore;
  ceremonies: PasskeyCeremonies;
  recoveryCodes: RecoveryCodes;
  /**
   * Whether `accountId` may sign in with its password: not when an admin switched it off for the
   * account, nor, with PASSWORD_FALLBACK=false, when the account has a passkey.
   */
  passwordAllowed(accountId: string): Promise<boolean>;
  /** Removes the passkeys and recovery codes of a removed account; how many passkeys it had. */
  forget(accountId: string): Promise<number>;
  /** Creates the collections' indexes. */
  init(): Promise<void>;
}

/** What {@link createPasskeys} needs. */
export interface PasskeysDeps {
  mongo: Connection;
  redis: RedisClient;
  accounts: AccountStore;
  /** REDIS_KEY_PREFIX. */
  prefix: string;
  baseUrl: string;
  /** PASSWORD_FALLBACK. */
  passwordFallback: boolean;
  /** COOKIE_SECRETS, newest first: the keys recovery codes are found by are derived from them. */
  secrets: readonly string[];
}

/** Builds {@link Passkeys}. */
export function createPasskeys({
  mongo,
  redis,
  accounts,
  prefix,
  baseUrl,
  passwordFallback,
  secrets,
}: PasskeysDeps): Passkeys {
  const store = new PasskeyStore(mongo);
  const recoveryCodes = new RecoveryCodes(mongo, secrets);
  const ceremonies = new PasskeyCeremonies({
    baseUrl,
    passkeys: store,
    challenges: new Challenges(redis, prefix),
  });
  return {
    store,
    ceremonies,
    recoveryCodes,
    async passwordAllowed(accountId) {
      if (await accounts.passwordSwitchedOff(accountId)) return false;
      return passwordFallback || (await store.count(accountId)) === 0;
    },
    async forget(accountId) {
      const [passkeysRemoved] = await Promise.all([
        store.removeAll(accountId),
        recoveryCodes.removeAll(accountId),
      ]);
      return passkeysRemoved;
    },
    async init() {
      await Promise.all([store.init(), recoveryCodes.init()]);
    },
  };
}
