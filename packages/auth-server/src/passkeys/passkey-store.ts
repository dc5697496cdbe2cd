/**
 * The passkeys of accounts (passkey.model.ts): add, list, find, record a use, remove one or all. A
 * use only moves the counter forward: two sign-ins racing with one credential cannot set it back.
 */
import type { Connection, Model } from 'mongoose';
import { passkeyModel, type PasskeyDocument } from './passkey.model.js';

/** A passkey as Your account lists it. */
export interface PasskeyView {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt?: Date;
  /** The factor shown before it was added; absent on passkeys from before that was asked. */
  proof?: 'password' | 'passkey';
}

/** A passkey added after only a password was shown, in another login session: its owner is told. */
export interface AddedPasskeyNotice {
  name: string;
  createdAt: Date;
}

/** How long Your account tells of a passkey added after only a password. */
export const ADDED_NOTICE_DAYS = 14;

/** The most passkeys one account may hold (each is a page row and a WebAuthn exclude entry). */
export const MAX_PASSKEYS_PER_ACCOUNT = 20;

/** Stored passkeys. */
export class PasskeyStore {
  private readonly model: Model<PasskeyDocument>;

  constructor(connection: Connection) {
    this.model = passkeyModel(connection);
  }

  /** Creates the indexes. */
  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Stores a new passkey; false when its credential id is stored already. */
  async add(passkey: Omit<PasskeyDocument, 'createdAt' | 'lastUsedAt'>): Promise<boolean> {
    try {
      await this.model.create({ ...passkey, createdAt: new Date() });
      return true;
    } catch (err) {
      if ((err as { code?: number }).code === 11000) return false;
      throw err;
    }
  }

  /** The passkey with this credential id. */
  async find(id: string): Promise<PasskeyDocument | undefined> {
    return (await this.model.findById(id).lean<PasskeyDocument>()) ?? undefined;
  }

  /** An account's passkeys, oldest first, without their keys. */
  async list(accountId: string): Promise<PasskeyView[]> {
    const docs = await this.model
      .find({ accountId }, { name: 1, createdAt: 1, lastUsedAt: 1, proof: 1 })
      .sort({ createdAt: 1, _id: 1 })
      .lean<Array<Pick<PasskeyDocument, '_id' | 'name' | 'createdAt' | 'lastUsedAt' | 'proof'>>>();
    return docs.map(({ _id, name, createdAt, lastUsedAt, proof }) => ({
      id: _id,
      name,
      createdAt,
      lastUsedAt,
      ...(proof ? { proof } : {}),
    }));
  }

  /**
   * Records, on the passkeys of `accountId` that are not among `before` and carry no proof yet (the
   * one the ceremony just stored), the factor shown before and the login session they were added in.
   */
  async recordAdded(
    accountId: string,
    before: string[],
    added: { proof: 'password' | 'passkey'; sessionUid: string },
  ): Promise<void> {
    await this.model.updateMany(
      { accountId, _id: { $nin: before }, proof: { $exists: false } },
      { $set: { proof: added.proof, addedInSession: added.sessionUid } },
    );
  }

  /**
   * The passkeys of `accountId` added within {@link ADDED_NOTICE_DAYS} after only a password was
   * shown, in a login session other than `sessionUid`.
   */
  async addedAfterPassword(
    accountId: string,
    sessionUid: string,
    now = new Date(),
  ): Promise<AddedPasskeyNotice[]> {
    const since = new Date(now.getTime() - ADDED_NOTICE_DAYS * 24 * 60 * 60 * 1000);
    const docs = await this.model
      .find(
        { accountId, proof: 'password', addedInSession: { $ne: sessionUid }, createdAt: { $gte: since } },
        { name: 1, createdAt: 1 },
      )
      .sort({ createdAt: 1, _id: 1 })
      .lean<Array<Pick<PasskeyDocument, 'name' | 'createdAt'>>>();
    return docs.map(({ name, createdAt }) => ({ name, createdAt }));
  }

  /** The credential ids and transports of an account's passkeys (not to be registered twice). */
  async descriptors(accountId: string): Promise<Array<{ id: string; transports: string[] }>> {
    const docs = await this.model
      .find({ accountId }, { transports: 1 })
      .lean<Array<Pick<PasskeyDocument, '_id' | 'transports'>>>();
    return docs.map((d) => ({ id: d._id, transports: d.transports }));
  }

  /** How many passkeys an account has. */
  async count(accountId: string): Promise<number> {
    return this.model.countDocuments({ accountId });
  }

  /**
   * Records a sign-in with a passkey whose counter was `previous` and is now `counter`; false when
   * another sign-in moved it first (this one then did not happen).
   */
  async recordUse(id: string, previous: number, counter: number): Promise<boolean> {
    const { matchedCount } = await this.model.updateOne(
      { _id: id, counter: previous },
      { $set: { counter, lastUsedAt: new Date() } },
    );
    return matchedCount === 1;
  }

  /** Removes every passkey of an account (a removed account); how many there were. */
  async removeAll(accountId: string): Promise<number> {
    return (await this.model.deleteMany({ accountId })).deletedCount;
  }

  /** Removes one of an account's passkeys; its name when there was one. */
  async remove(accountId: string, id: string): Promise<string | undefined> {
    const doc = await this.model.findOne({ _id: id, accountId }, { name: 1 }).lean();
    if (!doc) return undefined;
    const { deletedCount } = await this.model.deleteOne({ _id: id, accountId });
    return deletedCount === 1 ? doc.name : undefined;
  }
}
