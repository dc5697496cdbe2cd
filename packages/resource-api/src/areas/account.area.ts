/**
 * Account: the signed-in user's own staff account — the document of the `accounts` collection the
 * auth server signs people in with, found by the token's `sub`. `account:write` may change the name
 * fields only; email, role and the password are managed by the auth server. The password hash is
 * never read (projection) and never mapped.
 */
import { Schema } from 'mongoose';
import { z } from 'zod';
import { modelOn } from '../lib/models.js';
import { AccessDeniedError, NotFoundError } from '../lib/errors.js';
import type { AreaModule, OperationContext } from '../lib/operation.js';
import { iso, mapInput } from '../lib/wire.js';

interface AccountDoc {
  _id: string;
  email: string;
  name: string;
  givenName?: string | null;
  familyName?: string | null;
  role: 'admin' | 'staff';
  emailVerified: boolean;
  createdAt?: Date;
  updatedAt?: Date;
}

// Only the fields this area reads or writes; the auth server owns the collection's full shape.
const schema = new Schema(
  {
    _id: String,
    email: String,
    name: String,
    givenName: String,
    familyName: String,
    role: String,
    emailVerified: Boolean,
  },
  { collection: 'accounts', timestamps: true, versionKey: false, strict: true },
);

const PROJECTION = {
  _id: 1,
  email: 1,
  name: 1,
  givenName: 1,
  familyName: 1,
  role: 1,
  emailVerified: 1,
  createdAt: 1,
  updatedAt: 1,
};

const output = z.strictObject({
  id: z.string().describe('The account id: the `sub` of your tokens'),
  email: z.string(),
  email_verified: z.boolean(),
  name: z.string(),
  given_name: z.string().nullable(),
  family_name: z.string().nullable(),
  role: z.enum(['admin', 'staff']),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});

const update = z.strictObject({
  name: z.string().max(200).trim().min(1).optional(),
  given_name: z.string().max(100).trim().nullable().optional(),
  family_name: z.string().max(100).trim().nullable().optional(),
});

const toApi = (a: AccountDoc) => ({
  id: a._id,
  email: a.email,
  email_verified: a.emailVerified ?? false,
  name: a.name,
  given_name: a.givenName ?? null,
  family_name: a.familyName ?? null,
  role: a.role,
  created_at: iso(a.createdAt),
  updated_at: iso(a.updatedAt),
});

const model = (ctx: OperationContext) => modelOn(ctx.services.connection, 'ApiAccount', schema, 'accounts');

/** The account id of the caller (the scope check has already required a token). */
function subject(ctx: OperationContext): string {
  if (ctx.principal.kind !== 'token' || !ctx.principal.sub) {
    throw new AccessDeniedError('account:read', {});
  }
  return ctx.principal.sub;
}

const area: AreaModule = {
  name: 'account',
  description: 'The signed-in user’s own account (the `sub` of the token): profile and role.',
  operations: [
    {
      area: 'account',
      action: 'get',
      method: 'get',
      path: '/api/v1/account',
      access: 'read',
      summary: 'Get your account',
      description: 'The account the token was issued for.',
      response: { status: 200, description: 'Your account', full: { name: 'Account', schema: output } },
      errors: [404],
      async handle(ctx) {
        const doc = await model(ctx).findById(subject(ctx), PROJECTION).lean<AccountDoc>();
        if (!doc) throw new NotFoundError('the account of this token no longer exists');
        return { status: 200, body: toApi(doc) };
      },
    },
    {
      area: 'account',
      action: 'update',
      method: 'patch',
      path: '/api/v1/account',
      access: 'write',
      summary: 'Change your name',
      description: 'Only the name fields can change here; email, role and password are managed at sign-in.',
      body: { kind: 'json', schema: { name: 'AccountUpdate', schema: update } },
      response: {
        status: 200,
        description: 'Your updated account',
        full: { name: 'Account', schema: output },
      },
      errors: [400, 404, 413, 415],
      example: { body: { given_name: 'Ada', family_name: 'Admin' } },
      async handle(ctx) {
        const changes = mapInput(ctx.body, {
          name: 'name',
          given_name: 'givenName',
          family_name: 'familyName',
        });
        const M = model(ctx);
        // null clears a name field: removed, not stored as null, so the auth server's claims omit it
        // (OpenID Connect Core §5.3.2) instead of sending `"family_name": null`.
        const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== null));
        const unset = Object.fromEntries(
          Object.entries(changes)
            .filter(([, v]) => v === null)
            .map(([k]) => [k, '']),
        );
        const update = {
          ...(Object.keys(set).length ? { $set: set } : {}),
          ...(Object.keys(unset).length ? { $unset: unset } : {}),
        };
        // updateOne then a projected read: FerretDB has no projection on findAndModify, and the
        // password hash must never be read.
        if (Object.keys(update).length) await M.updateOne({ _id: subject(ctx) }, update);
        const doc = await M.findById(subject(ctx), PROJECTION).lean<AccountDoc>();
        if (!doc) throw new NotFoundError('the account of this token no longer exists');
        return { status: 200, body: toApi(doc) };
      },
    },
  ],
};

export default area;
