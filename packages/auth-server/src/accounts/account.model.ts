/**
 * The school's staff accounts (admins and staff) in MongoDB. One deployment serves one school, so
 * there is no tenant key. The resource API's `account` area reads and edits the same collection.
 */
import { Schema, type Connection, type Model } from 'mongoose';

/** An account as stored. */
export interface AccountDocument {
  _id: string;
  email: string;
  passwordHash: string;
  name: string;
  givenName?: string;
  familyName?: string;
  /** The name of one of the school's roles (accounts/roles.ts): what the person may grant apps. */
  role: string;
  /** True while an admin has disabled the account: it cannot sign in and no app acts for it. */
  disabled?: boolean;
  emailVerified: boolean;
  /** An admin switched password sign-in off: the account signs in with a passkey or a recovery code. */
  passwordOff?: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const accountSchema = new Schema<AccountDocument>(
  {
    _id: { type: String, required: true },
    email: { type: String, required: true, lowercase: true, trim: true, unique: true },
    passwordHash: { type: String, required: true },
    name: { type: String, required: true },
    givenName: String,
    familyName: String,
    role: { type: String, default: 'staff' },
    disabled: { type: Boolean, default: false },
    emailVerified: { type: Boolean, default: false },
    passwordOff: { type: Boolean, default: false },
  },
  { collection: 'accounts', timestamps: true, versionKey: false },
);

/** The Account model type. */
export type AccountModel = Model<AccountDocument>;

/** The Account model bound to a connection (each service owns its connection). */
export function accountModel(connection: Connection): AccountModel {
  const existing = connection.models.Account as unknown as AccountModel | undefined;
  return existing ?? (connection.model('Account', accountSchema) as unknown as AccountModel);
}
