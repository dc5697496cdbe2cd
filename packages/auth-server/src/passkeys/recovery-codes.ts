/**
 * Recovery codes: ten one-time codes an account generates on Your account, shown once, stored as
 * argon2id hashes (accounts/password.ts). A code signs its account in once, for when the passkey is
 * lost; generating new codes replaces every old one.
 *
 * A code is 16 characters from an alphabet without look-alikes (80 bits), written in four groups;
 * what is typed is read without case, spaces or dashes.
 */
import { randomInt, randomUUID } from 'node:crypto';
import type { Connection, Model } from 'mongoose';
import { hashPassword, verifyPassword } from '../accounts/password.js';
import { recoveryCodeModel, type RecoveryCodeDocument } from './recovery-code.model.js';

/** How many codes are generated at once. */
export const RECOVERY_CODE_COUNT = 10;

const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const LENGTH = 16;

/** A code as typed, reduced to what counts. */
export function normaliseRecoveryCode(typed: string): string {
  return typed.toLowerCase().replace(/[\s-]/g, '');
}

function newCode(): string {
  const chars = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  return chars.match(/.{4}/g)!.join('-');
}

/** Recovery codes of accounts. */
export class RecoveryCodes {
  private readonly model: Model<RecoveryCodeDocument>;

  constructor(connection: Connection) {
    this.model = recoveryCodeModel(connection);
  }

  /** Creates the indexes. */
  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Replaces the account's codes with {@link RECOVERY_CODE_COUNT} new ones, returned to be shown once. */
  async generate(accountId: string): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
    const hashes = await Promise.all(codes.map((c) => hashPassword(normaliseRecoveryCode(c))));
    const createdAt = new Date();
    await this.model.deleteMany({ accountId });
    await this.model.insertMany(hashes.map((hash) => ({ _id: randomUUID(), accountId, hash, createdAt })));
    return codes;
  }

  /** Removes every code of an account (a removed account). */
  async removeAll(accountId: string): Promise<void> {
    await this.model.deleteMany({ accountId });
  }

  /** How many unused codes an account has. */
  async unused(accountId: string): Promise<number> {
    return this.model.countDocuments({ accountId, usedAt: null });
  }

  /**
   * Uses `typed` for `accountId`: true when it is one of the account's unused codes, which is then
   * marked used (atomically: of two requests with one code, one wins). An account without codes still
   * costs one full hash, so the time says nothing about which accounts have codes.
   */
  async use(accountId: string | undefined, typed: string): Promise<boolean> {
    const code = normaliseRecoveryCode(typed);
    const stored = accountId
      ? await this.model.find({ accountId, usedAt: null }, { hash: 1 }).lean<RecoveryCodeDocument[]>()
      : [];
    if (stored.length === 0 || code.length !== LENGTH) {
      await verifyPassword(undefined, code);
      return false;
    }
    for (const { _id, hash } of stored) {
      if (!(await verifyPassword(hash, code))) continue;
      const { matchedCount } = await this.model.updateOne(
        { _id, usedAt: null },
        { $set: { usedAt: new Date() } },
      );
      return matchedCount === 1;
    }
    return false;
  }
}
