/**
 * Coupons: discount codes for checkout. A code is unique (stored uppercase), takes either a percentage
 * or a fixed amount off, may be limited to some courses, to a number of redemptions and to a date.
 * `times_redeemed` is counted by checkout and read-only here; `redeemable` says whether the code works
 * right now.
 */
import { Schema, type Types } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, type Stored } from '../lib/crud.js';
import { enumFilter } from '../lib/filters.js';
import type { Problem } from '../lib/errors.js';
import { objectIdSchema } from '../lib/ids.js';
import { asDate, asIds, currency, idOf, idsOf, instant, iso, isoRequired, mapInput } from '../lib/wire.js';

const TYPE = ['percent', 'amount'] as const;

interface Coupon {
  code: string;
  description?: string | null;
  discountType: (typeof TYPE)[number];
  percentOff?: number | null;
  amountOffCents?: number | null;
  currency?: string | null;
  courseIds: Types.ObjectId[];
  maxRedemptions?: number | null;
  timesRedeemed: number;
  expiresAt?: Date | null;
  active: boolean;
}

const schema = new Schema<Coupon>(
  {
    code: { type: String, required: true, unique: true, uppercase: true, trim: true },
    description: String,
    discountType: { type: String, enum: TYPE, required: true },
    percentOff: Number,
    amountOffCents: Number,
    currency: String,
    courseIds: { type: [Schema.Types.ObjectId], default: [] },
    maxRedemptions: Number,
    timesRedeemed: { type: Number, default: 0 },
    expiresAt: Date,
    active: { type: Boolean, default: true },
  },
  { timestamps: true, versionKey: false },
);

const output = z.strictObject({
  id: z.string(),
  code: z.string(),
  description: z.string().nullable(),
  discount_type: z.enum(TYPE),
  percent_off: z.number().nullable(),
  amount_off_cents: z.number().int().nullable(),
  currency: z.string().nullable(),
  course_ids: z.array(z.string()).describe('Empty: valid for every course'),
  max_redemptions: z.number().int().nullable(),
  times_redeemed: z.number().int(),
  expires_at: instant.nullable(),
  active: z.boolean(),
  redeemable: z.boolean().describe('Active, not expired and under its redemption limit, now'),
  created_at: instant,
  updated_at: instant,
});

/**
 * What each discount type takes, for the document: `check` enforces it (on updates too, against the
 * merged coupon), and CouponCreate states it as a `oneOf`, so a body the document accepts is one the
 * API accepts. test/writes.test.ts holds the two to the same answers.
 */
const DISCOUNT_RULE = {
  oneOf: [
    {
      type: 'object',
      properties: {
        discount_type: { const: 'percent' },
        percent_off: { type: 'number' },
        amount_off_cents: { type: 'null' },
      },
      required: ['percent_off'],
    },
    {
      type: 'object',
      properties: {
        discount_type: { const: 'amount' },
        amount_off_cents: { type: 'integer' },
        currency: { type: 'string' },
        percent_off: { type: 'null' },
      },
      required: ['amount_off_cents', 'currency'],
    },
  ],
};

const create = z
  .strictObject({
    code: z
      .string()
      .regex(/^[A-Za-z0-9_-]{3,40}$/, 'must be 3-40 letters, digits, dashes or underscores')
      .describe('Stored uppercase'),
    description: z.string().max(500).nullable().optional(),
    discount_type: z.enum(TYPE),
    percent_off: z.number().min(1).max(100).nullable().optional().describe('Required for percent'),
    amount_off_cents: z
      .number()
      .int()
      .min(1)
      .max(100_000_000)
      .nullable()
      .optional()
      .describe('Required for amount'),
    currency: currency.nullable().optional().describe('Required for amount'),
    course_ids: z.array(objectIdSchema).max(100).optional(),
    max_redemptions: z.number().int().min(1).nullable().optional().describe('null: unlimited'),
    expires_at: instant.nullable().optional().describe('null: never'),
    active: z.boolean().optional().describe('Default true'),
  })
  .meta(DISCOUNT_RULE);

const absent = (v: unknown) => v === null || v === undefined;

function check(doc: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  if (doc.discountType === 'percent') {
    if (absent(doc.percentOff))
      problems.push({ path: 'body.percent_off', message: 'is required for a percent coupon' });
    if (!absent(doc.amountOffCents))
      problems.push({ path: 'body.amount_off_cents', message: 'must be null for a percent coupon' });
  } else {
    if (absent(doc.amountOffCents))
      problems.push({ path: 'body.amount_off_cents', message: 'is required for an amount coupon' });
    if (absent(doc.currency))
      problems.push({ path: 'body.currency', message: 'is required for an amount coupon' });
    if (!absent(doc.percentOff))
      problems.push({ path: 'body.percent_off', message: 'must be null for an amount coupon' });
  }
  return problems;
}

export default defineCollectionArea<Coupon>({
  name: 'coupons',
  noun: 'coupon',
  schemaName: 'Coupon',
  description: 'Discount codes with redemption limits and expiry.',
  modelName: 'Coupon',
  collection: 'coupons',
  schema,
  output,
  toApi: (d: Stored<Coupon>) => ({
    id: idOf(d._id),
    code: d.code,
    description: d.description ?? null,
    discount_type: d.discountType,
    percent_off: d.percentOff ?? null,
    amount_off_cents: d.amountOffCents ?? null,
    currency: d.currency ?? null,
    course_ids: idsOf(d.courseIds),
    max_redemptions: d.maxRedemptions ?? null,
    times_redeemed: d.timesRedeemed ?? 0,
    expires_at: iso(d.expiresAt),
    active: d.active,
    redeemable:
      d.active &&
      (!d.expiresAt || new Date(d.expiresAt).getTime() > Date.now()) &&
      (d.maxRedemptions === null ||
        d.maxRedemptions === undefined ||
        (d.timesRedeemed ?? 0) < d.maxRedemptions),
    created_at: isoRequired(d.createdAt),
    updated_at: isoRequired(d.updatedAt),
  }),
  input: {
    create,
    toStore: (i) =>
      mapInput(i, {
        code: ['code', (v) => String(v).toUpperCase()],
        description: 'description',
        discount_type: 'discountType',
        percent_off: 'percentOff',
        amount_off_cents: 'amountOffCents',
        currency: 'currency',
        course_ids: ['courseIds', asIds],
        max_redemptions: 'maxRedemptions',
        expires_at: ['expiresAt', asDate],
        active: 'active',
      }),
    check,
  },
  list: {
    sort: { field: 'createdAt', order: -1, kind: 'date' },
    order: 'newest first',
    search: { fields: ['code', 'description'], what: 'code and description (case-insensitive)' },
    filters: [
      enumFilter('discount_type', 'discountType', TYPE, 'coupons'),
      {
        param: 'active',
        schema: z
          .enum(['true', 'false'])
          .optional()
          .describe('Only active (true) or inactive (false) coupons'),
        toFilter: (v) => ({ active: v === 'true' }),
      },
    ],
  },
  unique: ['code'],
  examples: {
    create: { code: 'SPRING25', discount_type: 'percent', percent_off: 25, max_redemptions: 100 },
    update: { active: false },
  },
});
