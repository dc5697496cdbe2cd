/**
 * The passkeys (WebAuthn credentials) of the school's accounts in MongoDB, one document per
 * credential in `passkeys`: the public key and signature counter the server checks each sign-in
 * against, and what Your account shows (a name, when it was added and last used).
 */
import { Schema, type Connection, type Model } from 'mongoose';

/** A passkey as stored. */
export interface PasskeyDocument {
  /** The credential id (base64url), as the authenticator reports it. */
  _id: string;
  accountId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The highest signature counter seen; an assertion must go above it (unless both are 0). */
  counter: number;
  transports: string[];
  /** The name its owner gave it. */
  name: string;
  createdAt: Date;
  lastUsedAt?: Date;
  /**
   * The factor shown just before it was added (passkeys/factor-proof.ts); absent on passkeys added
   * before additions needed one.
   */
  proof?: 'password' | 'passkey';
  /** The login session (uid) it was added in: its owner is told of it in every other one. */
  addedInSession?: string;
}

const passkeySchema = new Schema<PasskeyDocument>(
  {
    _id: { type: String, required: true },
    accountId: { type: String, required: true, index: true },
    publicKey: { type: String, required: true },
    counter: { type: Number, required: true },
    transports: { type: [String], default: [] },
    name: { type: String, required: true },
    createdAt: { type: Date, required: true },
    lastUsedAt: Date,
    proof: { type: String, enum: ['password', 'passkey'] },
    addedInSession: String,
  },
  { collection: 'passkeys', versionKey: false },
);

/** The Passkey model bound to a connection. */
export function passkeyModel(connection: Connection): Model<PasskeyDocument> {
  const existing = connection.models.Passkey as unknown as Model<PasskeyDocument> | undefined;
  return existing ?? (connection.model('Passkey', passkeySchema) as unknown as Model<PasskeyDocument>);
}
