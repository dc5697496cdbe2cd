/**
 * Comments on posts, written by students and visitors and moderated (approved, pending, spam).
 * Read-only through the API (`comments:read` only).
 */
import { defineCollectionArea, NEWEST_FIRST } from '../lib/crud.js';
import { choice, ref, text } from '../lib/fields.js';
import { dateRangeFilters, enumFilter, idFilter } from '../lib/filters.js';

const STATUS = ['approved', 'pending', 'spam'] as const;

export default defineCollectionArea({
  name: 'comments',
  noun: 'comment',
  schemaName: 'Comment',
  description: 'Comments on posts, with their moderation status (read-only).',
  fields: {
    post_id: ref().required().with({ index: true }),
    author_name: text().required(),
    author_email: text().required(),
    body: text().required(),
    status: choice(STATUS).default('pending'),
  },
  list: {
    ...NEWEST_FIRST,
    search: { fields: ['body', 'authorName'], what: 'comment text and author name (case-insensitive)' },
    filters: [
      idFilter('post_id', 'postId', 'comments on the post'),
      enumFilter('status', 'status', STATUS, 'comments'),
      ...dateRangeFilters('created', 'createdAt', 'comments written'),
    ],
  },
});
