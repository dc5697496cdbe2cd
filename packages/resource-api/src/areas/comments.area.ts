/**
 * Comments on posts, written by students and visitors and moderated (approved, pending, spam).
 * Read-only through the API (`comments:read` only).
 */
import { Schema, type Types } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, type Stored } from '../lib/crud.js';
import { dateRangeFilters, enumFilter, idFilter } from '../lib/filters.js';
import { idOf, instant, isoRequired } from '../lib/wire.js';

const STATUS = ['approved', 'pending', 'spam'] as const;

interface Comment {
  postId: Types.ObjectId;
  authorName: string;
  authorEmail: string;
  body: string;
  status: (typeof STATUS)[number];
}

const schema = new Schema<Comment>(
  {
    postId: { type: Schema.Types.ObjectId, required: true, index: true },
    authorName: { type: String, required: true },
    authorEmail: { type: String, required: true },
    body: { type: String, required: true },
    status: { type: String, enum: STATUS, default: 'pending' },
  },
  { timestamps: true, versionKey: false },
);

const output = z.strictObject({
  id: z.string(),
  post_id: z.string(),
  author_name: z.string(),
  author_email: z.string(),
  body: z.string(),
  status: z.enum(STATUS),
  created_at: instant,
  updated_at: instant,
});

export default defineCollectionArea<Comment>({
  name: 'comments',
  noun: 'comment',
  schemaName: 'Comment',
  description: 'Comments on posts, with their moderation status (read-only).',
  modelName: 'Comment',
  collection: 'comments',
  schema,
  output,
  toApi: (d: Stored<Comment>) => ({
    id: idOf(d._id),
    post_id: idOf(d.postId),
    author_name: d.authorName,
    author_email: d.authorEmail,
    body: d.body,
    status: d.status,
    created_at: isoRequired(d.createdAt),
    updated_at: isoRequired(d.updatedAt),
  }),
  list: {
    sort: { field: 'createdAt', order: -1, kind: 'date' },
    order: 'newest first',
    search: { fields: ['body', 'authorName'], what: 'comment text and author name (case-insensitive)' },
    filters: [
      idFilter('post_id', 'postId', 'comments on the post'),
      enumFilter('status', 'status', STATUS, 'comments'),
      ...dateRangeFilters('created', 'createdAt', 'comments written'),
    ],
  },
});
