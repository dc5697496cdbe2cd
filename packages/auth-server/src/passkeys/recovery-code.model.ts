/**
 * Recovery codes in MongoDB (`recovery_codes`): each one an argon2id hash, like a password, the keyed
 * hash it is found by (recovery-codes.ts) with the key's id, and when it was used (a used code never
 * signs anyone in again). A code stored without a lookup (made before codes had one) is never found,
 * so it signs nobody in (docs/decisions.md).
 */
import { Schema, type Connection, type Model } from 'mongoose';

/** A recovery code as stored. */
export interface RecoveryCodeDocument {
  _id: string;
  accountId: string;
  /** argon2id (accounts/password.ts), never the code. */
  hash: string;
  /** HMAC-SHA256 of the code under a key derived from a cookie secret (base64url). */
  lookup?: string;
  /** Which key made `lookup` (a fingerprint of it, not the key). */
  keyId?: string;
  createdAt: Date;
  usedAt?: Date;
}

const recoveryCodeSchema = new Schema<RecoveryCodeDocument>(
  {
    _id: { type: String, required: true },
    accountId: { type: String, required: true, index: true },
    hash: { type: String, required: true },
    lookup: String,
    keyId: String,
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
