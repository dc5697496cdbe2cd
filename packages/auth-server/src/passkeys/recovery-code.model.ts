/**
 * Recovery codes in MongoDB (`recovery_codes`): each one an argon2id hash, like a password, and when
 * it was used (a used code never signs anyone in again).
 */
import { Schema, type Connection, type Model } from 'mongoose';

/** A recovery code as stored. */
export interface RecoveryCodeDocument {
  _id: string;
  accountId: string;
  /** argon2id (accounts/password.ts), never the code. */
  hash: string;
  createdAt: Date;
  usedAt?: Date;
}

const recoveryCodeSchema = new Schema<RecoveryCodeDocument>(
  {
    _id: { type: String, required: true },
    accountId: { type: String, required: true, index: true },
    hash: { type: String, required: true },
    createdAt: { type: Date, required: true },
    usedAt: Date,
  },
  { collection: 'recovery_codes', versionKey: false },
);

/** The RecoveryCode model bound to a connection. */
export function recoveryCodeModel(connection: Connection): Model<RecoveryCodeDocument> {
  const existing = connection.models.RecoveryCode as unknown as Model<RecoveryCodeDocument> | undefined;
  return (
    existing ??
    (connection.model('RecoveryCode', recoveryCodeSchema) as unknown as Model<RecoveryCodeDocument>)
  );
}
