/**
 * Digital products: downloads the school sells (e-books, templates, presets). A product has a unique
 * slug, a price and the ids of its files (uploaded through the storage area). Anonymous visitors see
 * published products without the file ids.
 */
import { Schema, type Types } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, type Stored } from '../lib/crud.js';
import { enumFilter } from '../lib/filters.js';
import { objectIdSchema } from '../lib/ids.js';
import { referenceProblems } from '../lib/references.js';
import {
  asIds,
  cents,
  currency,
  httpUrl,
  idOf,
  idsOf,
  managedFields,
  managedShape,
  mapInput,
  slug,
  slugify,
} from '../lib/wire.js';

const STATUS = ['draft', 'published', 'archived'] as const;

interface Product {
  title: string;
  slug: string;
  description: string;
  priceCents: number;
  currency: string;
  fileIds: Types.ObjectId[];
  imageUrl?: string | null;
  status: (typeof STATUS)[number];
}

const schema = new Schema<Product>(
  {
    title: { type: String, required: true },
    slug: { type: String, required: true, unique: true },
    description: { type: String, default: '' },
    priceCents: { type: Number, default: 0 },
    currency: { type: String, default: 'USD' },
    fileIds: { type: [Schema.Types.ObjectId], default: [] },
    imageUrl: String,
    status: { type: String, enum: STATUS, default: 'draft' },
  },
  { timestamps: true, versionKey: false },
);

const publicShape = {
  id: z.string(),
  title: z.string(),
  slug: z.string(),
  description: z.string(),
  price_cents: z.number().int(),
  currency: z.string(),
  image_url: z.string().nullable(),
};
const publicOutput = z.strictObject(publicShape);
const output = z.strictObject({
  ...publicShape,
  file_ids: z.array(z.string()).describe('Ids of files uploaded with POST /api/v1/storage'),
  ...managedShape(STATUS),
});

const create = z.strictObject({
  title: z.string().max(200).trim().min(1),
  slug: slug.optional().describe('Derived from the title when absent'),
  description: z.string().max(20_000).optional(),
  price_cents: cents.optional().describe('Default 0 (free)'),
  currency: currency.optional().describe('Default USD'),
  file_ids: z.array(objectIdSchema).max(50).optional().describe('Ids returned by POST /api/v1/storage'),
  image_url: httpUrl.nullable().optional(),
  status: z.enum(STATUS).optional().describe('Default draft'),
});

const publicFields = (d: Stored<Product>) => ({
  id: idOf(d._id),
  title: d.title,
  slug: d.slug,
  description: d.description ?? '',
  price_cents: d.priceCents,
  currency: d.currency,
  image_url: d.imageUrl ?? null,
});

export default defineCollectionArea<Product>({
  name: 'digital_products',
  noun: 'digital product',
  schemaName: 'DigitalProduct',
  description: 'Downloadable products (e-books, templates) with their files.',
  modelName: 'DigitalProduct',
  collection: 'digital_products',
  schema,
  output,
  toApi: (d) => ({
    ...publicFields(d),
    file_ids: idsOf(d.fileIds),
    ...managedFields(d),
  }),
  public: {
    what: 'published products only',
    output: publicOutput,
    filter: { status: 'published' },
    toApi: publicFields,
  },
  input: {
    create,
    toStore: (i) =>
      mapInput(i, {
        title: 'title',
        slug: 'slug',
        description: 'description',
        price_cents: 'priceCents',
        currency: 'currency',
        file_ids: ['fileIds', asIds],
        image_url: 'imageUrl',
        status: 'status',
      }),
    onCreate: (s) => ({ ...s, slug: s.slug ?? slugify(String(s.title)) }),
    check: (doc, connection) =>
      referenceProblems(connection, [
        {
          path: 'body.file_ids',
          collection: 'storage.files',
          ids: doc.fileIds as Types.ObjectId[],
          noun: 'file',
        },
      ]),
  },
  list: {
    sort: { field: 'createdAt', order: -1, kind: 'date' },
    order: 'newest first',
    search: { fields: ['title'], what: 'title (case-insensitive)' },
    filters: [enumFilter('status', 'status', STATUS, 'products')],
  },
  unique: ['slug'],
  examples: {
    create: {
      title: 'Hydration Calculator Sheet',
      price_cents: 900,
      description: 'A spreadsheet for bakers.',
    },
    update: { status: 'published' },
  },
});
