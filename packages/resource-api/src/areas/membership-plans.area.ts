/**
 * Membership plans: recurring offers (monthly or yearly) that give access to the community and
 * content, with an optional trial. Anonymous visitors see published plans (the pricing page).
 */
import { Schema } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, type Stored } from '../lib/crud.js';
import { enumFilter } from '../lib/filters.js';
import { cents, currency, idOf, managedFields, managedShape, mapInput, slug, slugify } from '../lib/wire.js';

const STATUS = ['draft', 'published', 'archived'] as const;
const INTERVAL = ['month', 'year'] as const;

interface Plan {
  name: string;
  slug: string;
  description: string;
  priceCents: number;
  currency: string;
  interval: (typeof INTERVAL)[number];
  trialDays: number;
  features: string[];
  status: (typeof STATUS)[number];
}

const schema = new Schema<Plan>(
  {
    name: { type: String, required: true },
    slug: { type: String, required: true, unique: true },
    description: { type: String, default: '' },
    priceCents: { type: Number, required: true },
    currency: { type: String, default: 'USD' },
    interval: { type: String, enum: INTERVAL, default: 'month' },
    trialDays: { type: Number, default: 0 },
    features: { type: [String], default: [] },
    status: { type: String, enum: STATUS, default: 'draft' },
  },
  { timestamps: true, versionKey: false },
);

const publicShape = {
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  price_cents: z.number().int(),
  currency: z.string(),
  interval: z.enum(INTERVAL),
  trial_days: z.number().int(),
  features: z.array(z.string()),
};
const publicOutput = z.strictObject(publicShape);
const output = z.strictObject({
  ...publicShape,
  ...managedShape(STATUS),
});

const create = z.strictObject({
  name: z.string().max(200).trim().min(1),
  slug: slug.optional().describe('Derived from the name when absent'),
  description: z.string().max(5000).optional(),
  price_cents: cents,
  currency: currency.optional().describe('Default USD'),
  interval: z.enum(INTERVAL).optional().describe('Default month'),
  trial_days: z.number().int().min(0).max(365).optional(),
  features: z.array(z.string().max(200).trim().min(1)).max(30).optional(),
  status: z.enum(STATUS).optional().describe('Default draft'),
});

const publicFields = (d: Stored<Plan>) => ({
  id: idOf(d._id),
  name: d.name,
  slug: d.slug,
  description: d.description ?? '',
  price_cents: d.priceCents,
  currency: d.currency,
  interval: d.interval,
  trial_days: d.trialDays ?? 0,
  features: d.features ?? [],
});

export default defineCollectionArea<Plan>({
  name: 'membership_plans',
  noun: 'membership plan',
  schemaName: 'MembershipPlan',
  description: 'Recurring membership plans (monthly or yearly) with trials and features.',
  modelName: 'MembershipPlan',
  collection: 'membership_plans',
  schema,
  output,
  toApi: (d) => ({
    ...publicFields(d),
    ...managedFields(d),
  }),
  public: {
    what: 'published plans only',
    output: publicOutput,
    filter: { status: 'published' },
    toApi: publicFields,
  },
  input: {
    create,
    toStore: (i) =>
      mapInput(i, {
        name: 'name',
        slug: 'slug',
        description: 'description',
        price_cents: 'priceCents',
        currency: 'currency',
        interval: 'interval',
        trial_days: 'trialDays',
        features: 'features',
        status: 'status',
      }),
    onCreate: (s) => ({ ...s, slug: s.slug ?? slugify(String(s.name)) }),
  },
  list: {
    sort: { field: 'priceCents', order: 1, kind: 'number' },
    order: 'cheapest first',
    search: { fields: ['name'], what: 'plan name (case-insensitive)' },
    filters: [
      enumFilter('status', 'status', STATUS, 'plans'),
      enumFilter('interval', 'interval', INTERVAL, 'plans'),
    ],
  },
  unique: ['slug'],
  examples: {
    create: {
      name: 'Studio Pass',
      price_cents: 1900,
      interval: 'month',
      trial_days: 7,
      features: ['All courses'],
    },
    update: { status: 'published' },
  },
});
