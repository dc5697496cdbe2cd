/**
 * Account: the signed-in user's own staff account — the document of the `accounts` collection the
 * auth server signs people in with, found by the token's `sub`. `account:write` may change the name
 * fields only; email, role and the password are managed by the auth server. The password hash is
 * never read (projection) and never mapped.
 */
import { Schema } from 'mongoose';
import { followingDisplayRule } from '@school/shared';
import { z } from 'zod';
import { AccessDeniedError, NotFoundError } from '../lib/errors.js';
import { computed, custom, text } from '../lib/fields.js';
import { modelOn } from '../lib/models.js';
import type { AreaModule, OperationContext } from '../lib/operation.js';
import { recordOf } from '../lib/record.js';
import { iso } from '../lib/wire.js';

type AccountDoc = Record<string, unknown> & { _id: string };

// Only the fields this area reads or writes; the auth server owns the collection's full shape.
const record = recordOf(
  {
    email: text(),
    email_verified: custom({ out: z.boolean(), store: { type: Boolean }, toApi: (v) => v ?? false }),
    // Names people read (the pages, apps' userinfo): held to the display rule, as everywhere.
    name: text().input(followingDisplayRule(z.string().max(200).trim().min(1))),
    given_name: text()
      .nullable()
      .input(followingDisplayRule(z.string().max(100).trim()).nullable()),
    family_name: text()
      .nullable()
      .input(followingDisplayRule(z.string().max(100).trim()).nullable()),
    // One of the school's roles, which are data of the auth server (`roles`), not a fixed list.
    role: text(),
    created_at: computed(z.string().nullable(), (d) => iso(d.createdAt as Date | undefined)),
    updated_at: computed(z.string().nullable(), (d) => iso(d.updatedAt as Date | undefined)),
  },
  { id: z.string().describe('The account id: the `sub` of your tokens'), timestamps: 'none' },
);
const schema = new Schema(
  { _id: String, ...record.definition },
  { collection: 'accounts', timestamps: true, versionKey: false, strict: true },
);
const PROJECTION = Object.fromEntries(
  ['_id', ...Object.keys(record.definition), 'createdAt', 'updatedAt'].map((k) => [k, 1]),
);
const output = record.output;
const toApi = record.toApi;

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
      body: { kind: 'json', schema: { name: 'AccountUpdate', schema: record.input.partial() } },
      response: {
        status: 200,
        description: 'Your updated account',
        full: { name: 'Account', schema: output },
      },
      errors: [400, 404, 413, 415],
      example: { body: { given_name: 'Ada', family_name: 'Admin' } },
      async handle(ctx) {
        const changes = record.toStore(ctx.body);
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
