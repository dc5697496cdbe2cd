/**
 * Orders: purchases made at checkout (courses, digital products, plans, event tickets), with line
 * items, subtotal, discount from a coupon, total and status. Read-only through the API (`orders:read`
 * only): orders are written by checkout, refunds by the payment provider.
 */
import { Schema, type Types } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, NEWEST_FIRST } from '../lib/crud.js';
import { choice, custom, instant, integer, ref, text } from '../lib/fields.js';
import { dateRangeFilters, enumFilter, idFilter, stringFilter } from '../lib/filters.js';
import { idOf } from '../lib/wire.js';

const STATUS = ['pending', 'paid', 'refunded', 'failed'] as const;
const ITEM_KIND = ['course', 'digital_product', 'membership_plan', 'event'] as const;

interface LineItem {
  kind: (typeof ITEM_KIND)[number];
  productId: Types.ObjectId;
  title: string;
  unitPriceCents: number;
  quantity: number;
}

const itemSchema = new Schema<LineItem>(
  {
    kind: { type: String, enum: ITEM_KIND, required: true },
    productId: { type: Schema.Types.ObjectId, required: true },
    title: { type: String, required: true },
    unitPriceCents: { type: Number, required: true },
    quantity: { type: Number, default: 1 },
  },
  { _id: false },
);

const items = custom({
  out: z.array(
    z.strictObject({
      kind: z.enum(ITEM_KIND),
      product_id: z.string(),
      title: z.string(),
      unit_price_cents: z.number().int(),
      quantity: z.number().int(),
      total_cents: z.number().int(),
    }),
  ),
  store: { type: [itemSchema] },
  toApi: (v) =>
    ((v as LineItem[] | undefined) ?? []).map((i) => ({
      kind: i.kind,
      product_id: idOf(i.productId),
      title: i.title,
      unit_price_cents: i.unitPriceCents,
      quantity: i.quantity,
      total_cents: i.unitPriceCents * i.quantity,
    })),
  toStore: (v) =>
    (v as Record<string, unknown>[]).map((i) => ({
      kind: i.kind,
      productId: i.product_id,
      title: i.title,
      unitPriceCents: i.unit_price_cents,
      quantity: i.quantity,
    })),
});

export default defineCollectionArea({
  name: 'orders',
  noun: 'order',
  schemaName: 'Order',
  description: 'Orders placed at checkout, with line items, discounts and payment status (read-only).',
  fields: {
    number: text().required().with({ unique: true }),
    student_id: ref().required().with({ index: true }),
    email: text().required(),
    items,
    subtotal_cents: integer().required(),
    discount_cents: integer().default(0),
    total_cents: integer().required(),
    currency: text().default('USD'),
    coupon_code: text().nullable(),
    status: choice(STATUS).default('pending'),
    paid_at: instant().nullable(),
    refunded_at: instant().nullable(),
  },
  list: {
    ...NEWEST_FIRST,
    search: { fields: ['number', 'email'], what: 'order number and email (case-insensitive)' },
    filters: [
      enumFilter('status', 'status', STATUS, 'orders'),
      idFilter('student_id', 'studentId', 'orders of the student'),
      stringFilter('coupon_code', 'couponCode', 'orders', (s) => s.toUpperCase()),
      ...dateRangeFilters('created', 'createdAt', 'orders placed'),
    ],
  },
  unique: ['number'],
});
