import { randomUUID } from 'node:crypto';
import type { Connection, Model } from 'mongoose';
import type { Account, AccountClaims } from 'oidc-provider';
import { accountModel, type AccountDocument } from './account.model.js';
import { hashPassword, verifyPassword } from './password.js';

/** What a new account needs. */
export interface NewAccount {
  email: string;
  password: string;
  name: string;
  givenName?: string;
  familyName?: string;
  role?: 'admin' | 'staff';
}

/** Accounts as the login page and oidc-provider's `findAccount` need them. */
export class AccountStore {
  private readonly model: Model<AccountDocument>;

  constructor(connection: Connection) {
    this.model = accountModel(connection);
  }

  /** Creates the collection's indexes (the unique email). */
  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Returns the account id when the email and password match, else undefined (same time either way). */
  async authenticate(email: string, password: string): Promise<string | undefined> {
    const account = await this.model
      .findOne({ email: email.trim().toLowerCase() }, { passwordHash: 1 })
      .lean();
    const ok = await verifyPassword(account?.passwordHash, password);
    return ok && account ? account._id : undefined;
  }

  /** Creates an account, or updates the password and name of the one with that email. */
  async upsert(input: NewAccount): Promise<string> {
    const email = input.email.trim().toLowerCase();
    const passwordHash = await hashPassword(input.password);
    const doc = await this.model
      .findOneAndUpdate(
        { email },
        {
          $set: {
            passwordHash,
            name: input.name,
            givenName: input.givenName,
            familyName: input.familyName,
            role: input.role ?? 'staff',
            emailVerified: true,
          },
          $setOnInsert: { _id: randomUUID(), email },
        },
        { upsert: true, returnDocument: 'after', lean: true },
      )
      .exec();
    return doc!._id;
  }

  /** oidc-provider's `findAccount`: the claims for `openid`, `profile` and `email`. */
  async findAccount(accountId: string): Promise<Account | undefined> {
    const a = await this.model.findById(accountId).lean();
    if (!a) return undefined;
    return {
      accountId: a._id,
      claims: (): AccountClaims => ({
        sub: a._id,
        name: a.name,
        given_name: a.givenName,
        family_name: a.familyName,
        updated_at: Math.floor(new Date(a.updatedAt).getTime() / 1000),
        email: a.email,
        email_verified: a.emailVerified,
      }),
    };
  }
}
