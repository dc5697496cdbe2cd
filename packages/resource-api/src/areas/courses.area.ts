/**
 * Courses: what the school sells and teaches. A course has a unique slug (its URL), a status
 * (draft → published → archived), a price in minor units, and its lecturers. Its lessons live in the
 * curriculum area. Anonymous visitors see published courses without internal fields.
 */
import { Schema, type Types } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, type Stored } from '../lib/crud.js';
import { dateRangeFilters, enumFilter, idFilter } from '../lib/filters.js';
import { objectIdSchema } from '../lib/ids.js';
import {
  asIds,
  cents,
  currency,
  httpUrl,
  idOf,
  idsOf,
  instant,
  iso,
  managedFields,
  mapInput,
  slug,
  slugify,
} from '../lib/wire.js';

const STATUS = ['draft', 'published', 'archived'] as const;
const LEVEL = ['beginner', 'intermediate', 'advanced'] as const;

interface Course {
  title: string;
  slug: string;
  subtitle?: string;
  description: string;
  status: (typeof STATUS)[number];
  level: (typeof LEVEL)[number];
  priceCents: number;
  currency: string;
  lecturerIds: Types.ObjectId[];
  imageUrl?: string | null;
  publishedAt?: Date | null;
}

const schema = new Schema<Course>(
  {
    title: { type: String, required: true },
    slug: { type: String, required: true, unique: true },
    subtitle: String,
    description: { type: String, default: '' },
    status: { type: String, enum: STATUS, default: 'draft' },
    level: { type: String, enum: LEVEL, default: 'beginner' },
    priceCents: { type: Number, default: 0 },
    currency: { type: String, default: 'USD' },
    lecturerIds: { type: [Schema.Types.ObjectId], default: [] },
    imageUrl: String,
    publishedAt: Date,
  },
  { timestamps: true, versionKey: false },
);

const output = z.strictObject({
  id: z.string(),
  title: z.string(),
  slug: z.string(),
  subtitle: z.string().nullable(),
  description: z.string(),
  status: z.enum(STATUS),
  level: z.enum(LEVEL),
  price_cents: z.number().int(),
  currency: z.string(),
  lecturer_ids: z.array(z.string()),
  image_url: z.string().nullable(),
  published_at: instant.nullable(),
  created_at: instant,
  updated_at: instant,
});

const publicOutput = z.strictObject({
  id: z.string(),
  title: z.string(),
  slug: z.string(),
  subtitle: z.string().nullable(),
  description: z.string(),
  level: z.enum(LEVEL),
  price_cents: z.number().int(),
  currency: z.string(),
  lecturer_ids: z.array(z.string()),
  image_url: z.string().nullable(),
  published_at: instant.nullable(),
});

const create = z.strictObject({
  title: z.string().max(200).trim().min(1),
  slug: slug.optional().describe('URL slug; derived from the title when absent'),
  subtitle: z.string().max(300).nullable().optional(),
  description: z.string().max(20_000).optional(),
  status: z.enum(STATUS).optional().describe('Default draft'),
  level: z.enum(LEVEL).optional().describe('Default beginner'),
  price_cents: cents.optional().describe('Price in minor units; 0 = free (default)'),
  currency: currency.optional().describe('Default USD'),
  lecturer_ids: z.array(objectIdSchema).max(20).optional(),
  image_url: httpUrl.nullable().optional(),
});

const publicFields = (d: Stored<Course>) => ({
  id: idOf(d._id),
  title: d.title,
  slug: d.slug,
  subtitle: d.subtitle ?? null,
  description: d.description ?? '',
  level: d.level,
  price_cents: d.priceCents,
  currency: d.currency,
  lecturer_ids: idsOf(d.lecturerIds),
  image_url: d.imageUrl ?? null,
  published_at: iso(d.publishedAt),
});

export default defineCollectionArea<Course>({
  name: 'courses',
  noun: 'course',
  schemaName: 'Course',
  description: 'The courses the school teaches and sells: title, slug, status, level, price and lecturers.',
  modelName: 'Course',
  collection: 'courses',
  schema,
  output,
  toApi: (d) => ({
    ...publicFields(d),
    ...managedFields(d),
  }),
  public: {
    what: 'published courses only',
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
        subtitle: 'subtitle',
        description: 'description',
        status: 'status',
        level: 'level',
        price_cents: 'priceCents',
        currency: 'currency',
        lecturer_ids: ['lecturerIds', asIds],
        image_url: 'imageUrl',
      });
      // published_at: when the course was last put live; it stays if the course is later archived.
      if (i.status === 'published') stored.publishedAt = new Date();
      return stored;
    },
    onCreate: (s) => ({ ...s, slug: s.slug ?? slugify(String(s.title)) }),
  },
  list: {
    sort: { field: 'createdAt', order: -1, kind: 'date' },
    order: 'newest first',
    search: { fields: ['title', 'subtitle'], what: 'title and subtitle (case-insensitive)' },
    filters: [
      enumFilter('status', 'status', STATUS, 'courses'),
      enumFilter('level', 'level', LEVEL, 'courses'),
      idFilter('lecturer_id', 'lecturerIds', 'courses taught by the lecturer'),
      ...dateRangeFilters('created', 'createdAt', 'courses created'),
    ],
  },
  unique: ['slug'],
  dependents: [{ collection: 'curriculum_sections', field: 'courseId' }],
  examples: {
    create: {
      title: 'Sourdough Fundamentals',
      subtitle: 'Bake your first open-crumb loaf',
      description: 'From starter to scoring: a hands-on beginner course.',
      price_cents: 4900,
      currency: 'USD',
      level: 'beginner',
    },
    update: { status: 'published', price_cents: 3900 },
  },
});
