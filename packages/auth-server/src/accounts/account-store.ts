import { randomUUID } from 'node:crypto';
import { displayTextProblem } from '@school/shared';
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
  role?: string;
}

/** An account as the account pages show it. */
export interface AccountProfile {
  _id: string;
  email: string;
  name: string;
  /**
   * One of the school's roles (accounts/roles.ts): `admin` also uses the admins' pages (every client,
   * Activity, staff accounts); each role's ceiling says what its holder may grant apps.
   */
  role: string;
  /** True while the account is disabled (it cannot sign in; account-status.ts). */
  disabled?: boolean;
  createdAt: Date;
  /** Password sign-in switched off by an admin. */
  passwordOff?: boolean;
  /** What the account pages tell this person once, on this visit (never stored with the account). */
  notices?: readonly string[];
}

/** An account with this email exists already ({@link AccountStore.create}). */
export class AccountExists extends Error {
  constructor(readonly email: string) {
    super(`an account with the email ${email} exists already`);
  }
}

const PROFILE = { email: 1, name: 1, role: 1, disabled: 1, createdAt: 1, passwordOff: 1 } as const;

/** A name that breaks the display rule (`@school/shared` display-text.ts), with the rule's words. */
export class NameRefused extends Error {}

/**
 * What is stored of a new account besides its id, email and password hash. Every name is one a
 * person reads (the account pages, `school-auth`, an app's userinfo), so each follows the display
 * rule, whichever way the account is made.
 */
function stored(input: NewAccount) {
  const { name, givenName, familyName } = input;
  for (const text of [name, givenName, familyName]) {
    const problem = text === undefined ? undefined : displayTextProblem(text);
    if (problem) throw new NameRefused(`The name ${problem}.`);
  }
  return { name, givenName, familyName, role: input.role ?? 'staff', emailVerified: true };
}

/** Options of {@link AccountStore}. */
export interface AccountStoreOptions {
  /** At most this many recently read accounts are kept (the oldest entry goes first). Default 1000. */
  cacheSize?: number;
}

/**
 * Accounts as the login page and oidc-provider's `findAccount` need them.
 *
 * `findAccount` may reuse an account read recently, when the caller says how old a read it accepts:
 * the token endpoint does (see provider/configuration.ts), because oidc-provider looks the account up
 * on every code exchange and refresh, and one school has few staff accounts, each with many apps and
 * agents refreshing tokens. Everything else (userinfo, the consent page, sign-in) reads MongoDB.
 * Changes made through this store (`upsert`) evict the entry at once.
 */
export class AccountStore {
  private readonly model: Model<AccountDocument>;
  private readonly cacheSize: number;
  /** Account id → the document and when it was read. */
  private readonly recent = new Map<string, { doc: AccountDocument; at: number }>();
  /** Bumped by every write, so a read that raced one is not kept. */
  private writes = 0;

  constructor(connection: Connection, options: AccountStoreOptions = {}) {
    this.model = accountModel(connection);
    this.cacheSize = options.cacheSize ?? 1_000;
  }

  /** Creates the collection's indexes (the unique email). */
  async init(): Promise<void> {
    await this.model.createIndexes();
  }

  /**
   * Returns the account id when the email and password match and the account is not disabled, else
   * undefined (same time either way).
   */
  async authenticate(email: string, password: string): Promise<string | undefined> {
    const account = await this.model
      .findOne({ email: email.trim().toLowerCase() }, { passwordHash: 1, disabled: 1 })
      .lean();
    const ok = await verifyPassword(account?.passwordHash, password);
    return ok && account && !account.disabled ? account._id : undefined;
  }

  /** The id of the account with this email, if there is one. */
  async idOf(email: string): Promise<string | undefined> {
    const account = await this.model.findOne({ email: email.trim().toLowerCase() }, { _id: 1 }).lean();
    return account?._id;
  }

  /** Creates an account, or updates the password and name of the one with that email. */
  async upsert(input: NewAccount): Promise<string> {
    const email = input.email.trim().toLowerCase();
    const passwordHash = await hashPassword(input.password);
    this.writes++;
    const doc = await this.model
      .findOneAndUpdate(
        { email },
        {
          $set: { passwordHash, ...stored(input) },
          $setOnInsert: { _id: randomUUID(), email },
        },
        { upsert: true, returnDocument: 'after', lean: true },
      )
      .exec();
    this.writes++;
    this.recent.delete(doc!._id);
    return doc!._id;
  }

  /**
   * Creates an account with a new email (staff by default); throws {@link AccountExists} when the
   * email has one, whose password is never touched (unlike {@link upsert}).
   */
  async create(input: NewAccount): Promise<AccountProfile> {
    const email = input.email.trim().toLowerCase();
    if (await this.idOf(email)) throw new AccountExists(email);
    const passwordHash = await hashPassword(input.password);
    try {
      const doc = await this.model.create({ _id: randomUUID(), email, passwordHash, ...stored(input) });
      return { _id: doc._id, email, name: doc.name, role: doc.role, createdAt: doc.createdAt };
    } catch (err) {
      if ((err as { code?: number }).code === 11000) throw new AccountExists(email); // a race: the index decides
      throw err;
    }
  }

  /** True when `accountId` is an account that may sign in: it exists and is not disabled. */
  async canSignIn(accountId: string): Promise<boolean> {
    const account = await this.model.findById(accountId, { disabled: 1 }).lean();
    return account !== null && !account.disabled;
  }

  /** True when `password` is the password of `accountId` (same time when the account is gone). */
  async checkPassword(accountId: string, password: string): Promise<boolean> {
    const account = await this.model.findById(accountId, { passwordHash: 1 }).lean();
    return (await verifyPassword(account?.passwordHash, password)) && account !== null;
  }

  /** Sets the password of `accountId` (hashed as every password is); false when there is no such account. */
  async setPassword(accountId: string, password: string): Promise<boolean> {
    const passwordHash = await hashPassword(password);
    this.writes++;
    const { matchedCount } = await this.model.updateOne({ _id: accountId }, { $set: { passwordHash } });
    this.writes++;
    this.recent.delete(accountId);
    return matchedCount === 1;
  }

  /** True when an admin switched password sign-in off for `accountId`. */
  async passwordSwitchedOff(accountId: string): Promise<boolean> {
    const account = await this.model.findById(accountId, { passwordOff: 1 }).lean();
    return account?.passwordOff === true;
  }

  /** Switches password sign-in of `accountId` off (`off`) or on; false when there is no such account. */
  async switchPassword(accountId: string, off: boolean): Promise<boolean> {
    return this.write(accountId, { passwordOff: off });
  }

  /** Disables or enables `accountId`; false when there is no such account. */
  async setDisabled(accountId: string, disabled: boolean): Promise<boolean> {
    return this.write(accountId, { disabled });
  }

  /** Gives `accountId` the role; false when there is no such account. */
  async setRole(accountId: string, role: AccountProfile['role']): Promise<boolean> {
    return this.write(accountId, { role });
  }

  /** Deletes `accountId`; false when there was no such account. */
  async remove(accountId: string): Promise<boolean> {
    this.writes++;
    const { deletedCount } = await this.model.deleteOne({ _id: accountId });
    this.writes++;
    this.recent.delete(accountId);
    return deletedCount === 1;
  }

  /** How many enabled admins there are besides `except`. */
  async otherEnabledAdmins(except: string): Promise<number> {
    return this.model.countDocuments({ role: 'admin', disabled: { $ne: true }, _id: { $ne: except } });
  }

  private async write(accountId: string, set: Partial<AccountDocument>): Promise<boolean> {
    this.writes++;
    const { matchedCount } = await this.model.updateOne({ _id: accountId }, { $set: set });
    this.writes++;
    this.recent.delete(accountId);
    return matchedCount === 1;
  }

  /** Who `accountId` is, for the account pages (never the password hash); undefined when gone. */
  async profile(accountId: string): Promise<AccountProfile | undefined> {
    const doc = await this.model.findById(accountId, PROFILE).lean<AccountProfile>();
    return doc ?? undefined;
  }

  /** The account with this email, as {@link profile} shows it. */
  async profileByEmail(email: string): Promise<AccountProfile | undefined> {
    const doc = await this.model
      .findOne({ email: email.trim().toLowerCase() }, PROFILE)
      .lean<AccountProfile>();
    return doc ?? undefined;
  }

  /** Every account, oldest first (one school has few), as {@link profile} shows them. */
  async list(): Promise<AccountProfile[]> {
    return this.model.find({}, PROFILE).sort({ createdAt: 1, _id: 1 }).lean<AccountProfile[]>();
  }

  /**
   * oidc-provider's `findAccount`: the claims for `openid`, `profile` and `email`. With `maxAgeMs`, an
   * account read at most that long ago may be reused (claims that stale, a deleted account found).
   */
  async findAccount(accountId: string, maxAgeMs = 0): Promise<Account | undefined> {
    const a = await this.load(accountId, maxAgeMs);
    if (!a || a.disabled) return undefined; // a disabled account is no account to oidc-provider
    return {
      accountId: a._id,
      // Claims without a value are left out, never sent as null (OpenID Connect Core §5.3.2).
      claims: (): AccountClaims => {
        const all: Record<string, unknown> = {
          sub: a._id,
          name: a.name,
          given_name: a.givenName,
          family_name: a.familyName,
          updated_at: Math.floor(new Date(a.updatedAt).getTime() / 1000),
          email: a.email,
          email_verified: a.emailVerified,
        };
        return Object.fromEntries(
          Object.entries(all).filter(([, v]) => v !== null && v !== undefined),
        ) as AccountClaims;
      },
    };
  }

  /** The account document: a read at most `maxAgeMs` old, else a fresh one from MongoDB. */
  private async load(accountId: string, maxAgeMs: number): Promise<AccountDocument | undefined> {
    const hit = maxAgeMs > 0 ? this.recent.get(accountId) : undefined;
    if (hit && Date.now() - hit.at <= maxAgeMs) return hit.doc;
    const writes = this.writes;
    const at = Date.now();
    const doc = await this.model.findById(accountId).lean<AccountDocument>();
    if (!doc) {
      this.recent.delete(accountId);
      return undefined;
    }
    if (writes === this.writes) {
      this.recent.delete(accountId);
      if (this.recent.size >= this.cacheSize) this.recent.delete(this.recent.keys().next().value!);
      this.recent.set(accountId, { doc, at });
    }
    return doc;
  }
}
