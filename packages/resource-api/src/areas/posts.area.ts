/**
 * Posts: the school's blog and announcements. A post has a unique slug, a body (Markdown), tags, an
 * optional author (a lecturer) and a status; publishing stamps `published_at`. Anonymous visitors see
 * published posts. Deleting a post deletes its comments.
 */
import type { Types } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, NEWEST_FIRST } from '../lib/crud.js';
import { ref, text, texts, requiredText } from '../lib/fields.js';
import { dateRangeFilters, stringFilter } from '../lib/filters.js';
import { objectIdSchema } from '../lib/ids.js';
import { publishedContent } from '../lib/published-content.js';
import { referenceProblems } from '../lib/references.js';

const content = publishedContent({ plural: 'posts', from: 'title' });

export default defineCollectionArea({
  name: 'posts',
  noun: 'post',
  schemaName: 'Post',
  description: 'Blog posts and announcements; comments on them are in the comments area.',
  fields: {
    title: requiredText().public(),
    slug: content.slug,
    excerpt: text().default('').input(z.string().max(1000).optional()).public(),
    body: text()
      .default('')
      .describe('Markdown')
      .input(z.string().max(200_000).optional().describe('Markdown'))
      .public(),
    tags: texts()
      .input(z.array(z.string().max(50).trim().min(1)).max(20).optional())
      .public(),
    author_id: ref()
      .nullable()
      .describe('A lecturer')
      .input(objectIdSchema.nullable().optional().describe('A lecturer'))
      .public(),
    published_at: content.publishedAt,
    status: content.status,
  },
  ...content.area,
  derive: content.stampPublishedAt,
  check: (doc, connection) =>
    referenceProblems(connection, [
      {
        path: 'body.author_id',
        collection: 'lecturers',
        ids: doc.authorId as Types.ObjectId | null,
        noun: 'lecturer',
      },
    ]),
  list: {
    ...NEWEST_FIRST,
    search: { fields: ['title', 'excerpt'], what: 'title and excerpt (case-insensitive)' },
    filters: [
      content.statusFilter,
      stringFilter('tag', 'tags', 'posts'),
      ...dateRangeFilters('published', 'publishedAt', 'posts published'),
    ],
  },
  dependents: [{ collection: 'comments', field: 'postId' }],
  examples: {
    create: { title: 'Five mistakes new bakers make', body: '1. Rushing the starter…', tags: ['tips'] },
    update: { status: 'published' },
  },
});
