/**
 * Coupons: discount codes for checkout. A code is unique (stored uppercase), takes either a percentage
 * or a fixed amount off, may be limited to some courses, to a number of redemptions and to a date.
 * `times_redeemed` is counted by checkout and read-only here; `redeemable` says whether the code works
 * right now.
 */
import { z } from 'zod';
import { defineCollectionArea, NEWEST_FIRST } from '../lib/crud.js';
import type { Problem } from '../lib/errors.js';
import { choice, computed, flag, instant, integer, number, refs, text } from '../lib/fields.js';
import { enumFilter, flagFilter } from '../lib/filters.js';
import { objectIdSchema } from '../lib/ids.js';
import { currency, instant as instantSchema } from '../lib/wire.js';

const TYPE = ['percent', 'amount'] as const;

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

export default defineCollectionArea({
  name: 'coupons',
  noun: 'coupon',
  schemaName: 'Coupon',
  description: 'Discount codes with redemption limits and expiry.',
  fields: {
    code: text()
      .required()
      .with({ unique: true, uppercase: true, trim: true })
      .storing((v) => String(v).toUpperCase())
      .input(
        z
          .string()
          .regex(/^[A-Za-z0-9_-]{3,40}$/, 'must be 3-40 letters, digits, dashes or underscores')
          .describe('Stored uppercase'),
      ),
    description: text().nullable().input(z.string().max(500).nullable().optional()),
    discount_type: choice(TYPE).required().input(z.enum(TYPE)),
    percent_off: number()
      .nullable()
      .input(z.number().min(1).max(100).nullable().optional().describe('Required for percent')),
    amount_off_cents: integer()
      .nullable()
      .input(z.number().int().min(1).max(100_000_000).nullable().optional().describe('Required for amount')),
    currency: text().nullable().input(currency.nullable().optional().describe('Required for amount')),
    course_ids: refs()
      .describe('Empty: valid for every course')
      .input(z.array(objectIdSchema).max(100).optional()),
    max_redemptions: integer()
      .nullable()
      .input(z.number().int().min(1).nullable().optional().describe('null: unlimited')),
    times_redeemed: integer().default(0),
    expires_at: instant().nullable().input(instantSchema.nullable().optional().describe('null: never')),
    active: flag().default(true).input(z.boolean().optional().describe('Default true')),
    redeemable: computed(
      z.boolean().describe('Active, not expired and under its redemption limit, now'),
      (d) =>
        d.active &&
        (!d.expiresAt || new Date(d.expiresAt as Date).getTime() > Date.now()) &&
        (d.maxRedemptions === null ||
          d.maxRedemptions === undefined ||
          ((d.timesRedeemed as number | undefined) ?? 0) < (d.maxRedemptions as number)),
    ),
  },
  createMeta: DISCOUNT_RULE,
  check,
  list: {
    ...NEWEST_FIRST,
    search: { fields: ['code', 'description'], what: 'code and description (case-insensitive)' },
    filters: [
      enumFilter('discount_type', 'discountType', TYPE, 'coupons'),
      flagFilter('active', 'active', 'Only active (true) or inactive (false) coupons'),
    ],
  },
  unique: ['code'],
  examples: {
    create: { code: 'SPRING25', discount_type: 'percent', percent_off: 25, max_redemptions: 100 },
    update: { active: false },
  },
});
