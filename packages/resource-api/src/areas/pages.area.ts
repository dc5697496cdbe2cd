/**
 * Pages: the school's website pages (home, about, FAQ, terms), with a unique slug, a Markdown body and
 * SEO fields. Anonymous visitors see published pages.
 */
import { Schema } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, type Stored } from '../lib/crud.js';
import { enumFilter } from '../lib/filters.js';
import { idOf, instant, iso, managedFields, managedShape, mapInput, slug, slugify } from '../lib/wire.js';

const STATUS = ['draft', 'published'] as const;

interface Page {
  title: string;
  slug: string;
  body: string;
  seoTitle?: string | null;
  seoDescription?: string | null;
  status: (typeof STATUS)[number];
  publishedAt?: Date | null;
}

const schema = new Schema<Page>(
  {
    title: { type: String, required: true },
    slug: { type: String, required: true, unique: true },
    body: { type: String, default: '' },
    seoTitle: String,
    seoDescription: String,
    status: { type: String, enum: STATUS, default: 'draft' },
    publishedAt: Date,
  },
  { timestamps: true, versionKey: false },
);

const publicShape = {
  id: z.string(),
  title: z.string(),
  slug: z.string(),
  body: z.string().describe('Markdown'),
  seo_title: z.string().nullable(),
  seo_description: z.string().nullable(),
  published_at: instant.nullable(),
};
const publicOutput = z.strictObject(publicShape);
const output = z.strictObject({
  ...publicShape,
  ...managedShape(STATUS),
});

const create = z.strictObject({
  title: z.string().max(200).trim().min(1),
  slug: slug.optional().describe('Derived from the title when absent'),
  body: z.string().max(200_000).optional(),
  seo_title: z.string().max(70).nullable().optional(),
  seo_description: z.string().max(160).nullable().optional(),
  status: z.enum(STATUS).optional().describe('Default draft'),
});

const publicFields = (d: Stored<Page>) => ({
  id: idOf(d._id),
  title: d.title,
  slug: d.slug,
  body: d.body ?? '',
  seo_title: d.seoTitle ?? null,
  seo_description: d.seoDescription ?? null,
  published_at: iso(d.publishedAt),
});

export default defineCollectionArea<Page>({
  name: 'pages',
  noun: 'page',
  schemaName: 'Page',
  description: 'Website pages of the school (about, FAQ, terms) with SEO fields.',
  modelName: 'Page',
  collection: 'pages',
  schema,
  output,
  toApi: (d) => ({
    ...publicFields(d),
    ...managedFields(d),
  }),
  public: {
    what: 'published pages only',
    output: publicOutput,
    filter: { status: 'published' },
    toApi: publicFields,
  },
  input: {
    create,
    toStore: (i) => {
      const stored = mapInput(i, {
        title: 'title',
        slug: 'slug',
        body: 'body',
        seo_title: 'seoTitle',
        seo_description: 'seoDescription',
        status: 'status',
      });
      if (i.status === 'published') stored.publishedAt = new Date();
      return stored;
    },
    onCreate: (s) => ({ ...s, slug: s.slug ?? slugify(String(s.title)) }),
  },
  list: {
    sort: { field: 'createdAt', order: -1, kind: 'date' },
    order: 'newest first',
    search: { fields: ['title'], what: 'title (case-insensitive)' },
    filters: [enumFilter('status', 'status', STATUS, 'pages')],
  },
  unique: ['slug'],
  examples: {
    create: { title: 'Refund policy', body: 'Full refund within 30 days.' },
    update: { status: 'published', seo_title: 'Refunds' },
  },
});
