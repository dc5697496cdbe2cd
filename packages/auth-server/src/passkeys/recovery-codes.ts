/**
 * Recovery codes: ten one-time codes an account generates on Your account, shown once, stored as
 * argon2id hashes (accounts/password.ts). A code signs its account in once, for when the passkey is
 * lost; generating new codes replaces every old one.
 *
 * A code is 16 characters from an alphabet without look-alikes (80 bits), written in four groups;
 * what is typed is read without case, spaces or dashes.
 *
 * A typed code is found by a keyed hash, never by trying the account's hashes in turn: each code is
 * stored with HMAC-SHA256 of it (`lookup`) under a key derived with HKDF from a cookie secret
 * (COOKIE_SECRETS, newest first: a code is made with the newest and found with any of them). A sign-in
 * with a code then costs exactly one argon2id verification whatever the account, the email or the
 * code: the hash of the one code the lookup found, or a dummy when none was found. So the time says
 * nothing about which accounts hold codes, and the argon2id hash still stands between a leaked
 * database and the codes. Codes stored without a lookup, or whose key is no longer among the cookie
 * secrets, are never found, and Your account counts them as none left (docs/decisions.md).
 */
import { createHmac, hkdfSync, randomInt, randomUUID } from 'node:crypto';
import type { Connection, Model } from 'mongoose';
import { hashPassword, verifyPassword } from '../accounts/password.js';
import { recoveryCodeModel, type RecoveryCodeDocument } from './recovery-code.model.js';

/** How many codes are generated at once. */
export const RECOVERY_CODE_COUNT = 10;

const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const LENGTH = 16;

/** HKDF's `info`: what the derived key is for, so no other use of the secret shares it. */
const KEY_PURPOSE = 'school-auth recovery-code lookup v1';

/** A code as typed, reduced to what counts. */
export function normaliseRecoveryCode(typed: string): string {
  return typed.toLowerCase().replace(/[\s-]/g, '');
}

function newCode(): string {
  const chars = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  return chars.match(/.{4}/g)!.join('-');
}

/** A lookup key and its id. */
interface LookupKey {
  key: Buffer;
  id: string;
}

function lookupKey(secret: string): LookupKey {
  const key = Buffer.from(hkdfSync('sha256', secret, '', KEY_PURPOSE, 32));
  return { key, id: createHmac('sha256', key).update('key id').digest('base64url').slice(0, 16) };
}

const lookupOf = ({ key }: LookupKey, code: string) =>
  createHmac('sha256', key).update(code).digest('base64url');

/** How a typed code is checked against a stored hash (accounts/password.ts; undefined: a dummy hash). */
export type CodeVerifier = (stored: string | undefined, code: string) => Promise<boolean>;

/** Recovery codes of accounts. */
export class RecoveryCodes {
  private readonly model: Model<RecoveryCodeDocument>;
  private readonly keys: LookupKey[];

  /**
   * `secrets`: COOKIE_SECRETS, newest first, whose derived keys find codes. `verify`: the argon2id
   * check (replaced only to count the checks).
   */
  constructor(
    connection: Connection,
    secrets: readonly string[],
    private readonly verify: CodeVerifier = verifyPassword,
  ) {
    if (secrets.length === 0) throw new Error('recovery codes need at least one secret');
    this.model = recoveryCodeModel(connection);
    this.keys = secrets.map(lookupKey);
  }

  /** Creates the indexes. */
  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Replaces the account's codes with {@link RECOVERY_CODE_COUNT} new ones, returned to be shown once. */
  async generate(accountId: string): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
    const newest = this.keys[0]!;
    const stored = await Promise.all(
      codes.map(async (c) => {
        const code = normaliseRecoveryCode(c);
        return { hash: await hashPassword(code), lookup: lookupOf(newest, code) };
      }),
    );
    const createdAt = new Date();
    await this.model.deleteMany({ accountId });
    await this.model.insertMany(
      stored.map((s) => ({ _id: randomUUID(), accountId, ...s, keyId: newest.id, createdAt })),
    );
    return codes;
  }

  /** Removes every code of an account (a removed account). */
  async removeAll(accountId: string): Promise<void> {
    await this.model.deleteMany({ accountId });
  }

  /** How many unused codes an account has that can still be found (see the module comment). */
  async unused(accountId: string): Promise<number> {
    return this.model.countDocuments({ accountId, usedAt: null, keyId: { $in: this.keys.map((k) => k.id) } });
  }

  /**
   * Uses `typed` for `accountId` (undefined: no account may sign in with it): true when it is one of
   * the account's unused codes, which is then marked used (atomically: of two requests with one code,
   * one wins). Exactly one argon2id verification in every case (see the module comment).
   */
  async use(accountId: string | undefined, typed: string): Promise<boolean> {
    const code = normaliseRecoveryCode(typed);
    const lookups = code.length === LENGTH ? this.keys.map((k) => lookupOf(k, code)) : [];
    // Asked whether or not there is an account, so the reads are the same too.
    const found = await this.model
      .findOne({ accountId: accountId ?? '', usedAt: null, lookup: { $in: lookups } }, { hash: 1 })
      .lean<Pick<RecoveryCodeDocument, '_id' | 'hash'>>();
    const right = await this.verify(found?.hash, code);
    if (!found || !right || accountId === undefined) return false;
    const { matchedCount } = await this.model.updateOne(
      { _id: found._id, usedAt: null },
      { $set: { usedAt: new Date() } },
    );
    return matchedCount === 1;
  }
}
