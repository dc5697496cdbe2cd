/**
 * Orders: purchases made at checkout (courses, digital products, plans, event tickets), with line
 * items, subtotal, discount from a coupon, total and status. Read-only through the API (`orders:read`
 * only): orders are written by checkout, refunds by the payment provider.
 */
import { Schema, type Types } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, type Stored } from '../lib/crud.js';
import { dateRangeFilters, enumFilter, idFilter, stringFilter } from '../lib/filters.js';
import { idOf, instant, iso, isoRequired } from '../lib/wire.js';

const STATUS = ['pending', 'paid', 'refunded', 'failed'] as const;
const ITEM_KIND = ['course', 'digital_product', 'membership_plan', 'event'] as const;

interface LineItem {
  kind: (typeof ITEM_KIND)[number];
  productId: Types.ObjectId;
  title: string;
  unitPriceCents: number;
  quantity: number;
}

interface Order {
  number: string;
  studentId: Types.ObjectId;
  email: string;
  items: LineItem[];
  subtotalCents: number;
  discountCents: number;
  totalCents: number;
  currency: string;
  couponCode?: string | null;
  status: (typeof STATUS)[number];
  paidAt?: Date | null;
  refundedAt?: Date | null;
}

const schema = new Schema<Order>(
  {
    number: { type: String, required: true, unique: true },
    studentId: { type: Schema.Types.ObjectId, required: true, index: true },
    email: { type: String, required: true },
    items: [
      new Schema<LineItem>(
        {
          kind: { type: String, enum: ITEM_KIND, required: true },
          productId: { type: Schema.Types.ObjectId, required: true },
          title: { type: String, required: true },
          unitPriceCents: { type: Number, required: true },
          quantity: { type: Number, default: 1 },
        },
        { _id: false },
      ),
    ],
    subtotalCents: { type: Number, required: true },
    discountCents: { type: Number, default: 0 },
    totalCents: { type: Number, required: true },
    currency: { type: String, default: 'USD' },
    couponCode: String,
    status: { type: String, enum: STATUS, default: 'pending' },
    paidAt: Date,
    refundedAt: Date,
  },
  { timestamps: true, versionKey: false },
);

const output = z.strictObject({
  id: z.string(),
  number: z.string(),
  student_id: z.string(),
  email: z.string(),
  items: z.array(
    z.strictObject({
      kind: z.enum(ITEM_KIND),
      product_id: z.string(),
      title: z.string(),
      unit_price_cents: z.number().int(),
      quantity: z.number().int(),
      total_cents: z.number().int(),
    }),
  ),
  subtotal_cents: z.number().int(),
  discount_cents: z.number().int(),
  total_cents: z.number().int(),
  currency: z.string(),
  coupon_code: z.string().nullable(),
  status: z.enum(STATUS),
  paid_at: instant.nullable(),
  refunded_at: instant.nullable(),
  created_at: instant,
  updated_at: instant,
});

export default defineCollectionArea<Order>({
  name: 'orders',
  noun: 'order',
  schemaName: 'Order',
  description: 'Orders placed at checkout, with line items, discounts and payment status (read-only).',
  modelName: 'Order',
  collection: 'orders',
  schema,
  output,
  toApi: (d: Stored<Order>) => ({
    id: idOf(d._id),
    number: d.number,
    student_id: idOf(d.studentId),
    email: d.email,
    items: (d.items ?? []).map((i) => ({
      kind: i.kind,
      product_id: idOf(i.productId),
      title: i.title,
      unit_price_cents: i.unitPriceCents,
      quantity: i.quantity,
      total_cents: i.unitPriceCents * i.quantity,
    })),
    subtotal_cents: d.subtotalCents,
    discount_cents: d.discountCents,
    total_cents: d.totalCents,
    currency: d.currency,
    coupon_code: d.couponCode ?? null,
    status: d.status,
    paid_at: iso(d.paidAt),
    refunded_at: iso(d.refundedAt),
    created_at: isoRequired(d.createdAt),
    updated_at: isoRequired(d.updatedAt),
  }),
  list: {
    sort: { field: 'createdAt', order: -1, kind: 'date' },
    order: 'newest first',
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
