/**
 * Posts: the school's blog and announcements. A post has a unique slug, a body (Markdown), tags, an
 * optional author (a lecturer) and a status; publishing stamps `published_at`. Anonymous visitors see
 * published posts. Deleting a post deletes its comments.
 */
import { Schema, type Types } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, type Stored } from '../lib/crud.js';
import { dateRangeFilters, enumFilter, stringFilter } from '../lib/filters.js';
import { objectIdSchema } from '../lib/ids.js';
import { referenceProblems } from '../lib/references.js';
import {
  asId,
  idOf,
  instant,
  iso,
  managedFields,
  managedShape,
  mapInput,
  slug,
  slugify,
} from '../lib/wire.js';

const STATUS = ['draft', 'published', 'archived'] as const;

interface Post {
  title: string;
  slug: string;
  excerpt: string;
  body: string;
  tags: string[];
  authorId?: Types.ObjectId | null;
  status: (typeof STATUS)[number];
  publishedAt?: Date | null;
}

const schema = new Schema<Post>(
  {
    title: { type: String, required: true },
    slug: { type: String, required: true, unique: true },
    excerpt: { type: String, default: '' },
    body: { type: String, default: '' },
    tags: { type: [String], default: [] },
    authorId: Schema.Types.ObjectId,
    status: { type: String, enum: STATUS, default: 'draft' },
    publishedAt: Date,
  },
  { timestamps: true, versionKey: false },
);

const publicShape = {
  id: z.string(),
  title: z.string(),
  slug: z.string(),
  excerpt: z.string(),
  body: z.string().describe('Markdown'),
  tags: z.array(z.string()),
  author_id: z.string().nullable().describe('A lecturer'),
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
  excerpt: z.string().max(1000).optional(),
  body: z.string().max(200_000).optional().describe('Markdown'),
  tags: z.array(z.string().max(50).trim().min(1)).max(20).optional(),
  author_id: objectIdSchema.nullable().optional().describe('A lecturer'),
  status: z.enum(STATUS).optional().describe('Default draft'),
});

const publicFields = (d: Stored<Post>) => ({
  id: idOf(d._id),
  title: d.title,
  slug: d.slug,
  excerpt: d.excerpt ?? '',
  body: d.body ?? '',
  tags: d.tags ?? [],
  author_id: d.authorId ? idOf(d.authorId) : null,
  published_at: iso(d.publishedAt),
});

export default defineCollectionArea<Post>({
  name: 'posts',
  noun: 'post',
  schemaName: 'Post',
  description: 'Blog posts and announcements; comments on them are in the comments area.',
  modelName: 'Post',
  collection: 'posts',
  schema,
  output,
  toApi: (d) => ({
    ...publicFields(d),
    ...managedFields(d),
  }),
  public: {
    what: 'published posts only',
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
        excerpt: 'excerpt',
        body: 'body',
        tags: 'tags',
        author_id: ['authorId', asId],
        status: 'status',
      });
      if (i.status === 'published') stored.publishedAt = new Date();
      return stored;
    },
    onCreate: (s) => ({ ...s, slug: s.slug ?? slugify(String(s.title)) }),
    check: (doc, connection) =>
      referenceProblems(connection, [
        {
          path: 'body.author_id',
          collection: 'lecturers',
          ids: doc.authorId as Types.ObjectId | null,
          noun: 'lecturer',
        },
      ]),
  },
  list: {
    sort: { field: 'createdAt', order: -1, kind: 'date' },
    order: 'newest first',
    search: { fields: ['title', 'excerpt'], what: 'title and excerpt (case-insensitive)' },
    filters: [
      enumFilter('status', 'status', STATUS, 'posts'),
      stringFilter('tag', 'tags', 'posts'),
      ...dateRangeFilters('published', 'publishedAt', 'posts published'),
    ],
  },
  unique: ['slug'],
  dependents: [{ collection: 'comments', field: 'postId' }],
  examples: {
    create: { title: 'Five mistakes new bakers make', body: '1. Rushing the starter…', tags: ['tips'] },
    update: { status: 'published' },
  },
});
