/**
 * Courses: what the school sells and teaches. A course has a unique slug (its URL), a status
 * (draft → published → archived), a price in minor units, and its lecturers. Its lessons live in the
 * curriculum area. Anonymous visitors see published courses without internal fields.
 */
import { z } from 'zod';
import { defineCollectionArea, NEWEST_FIRST } from '../lib/crud.js';
import { choice, integer, refs, text, requiredText } from '../lib/fields.js';
import { dateRangeFilters, enumFilter, idFilter } from '../lib/filters.js';
import { objectIdSchema } from '../lib/ids.js';
import { publishedContent } from '../lib/published-content.js';
import { cents, currency, httpUrl } from '../lib/wire.js';

const LEVEL = ['beginner', 'intermediate', 'advanced'] as const;
const content = publishedContent({
  plural: 'courses',
  from: 'title',
  slugNote: 'URL slug; derived from the title when absent',
});

export default defineCollectionArea({
  name: 'courses',
  noun: 'course',
  schemaName: 'Course',
  description: 'The courses the school teaches and sells: title, slug, status, level, price and lecturers.',
  fields: {
    title: requiredText().public(),
    slug: content.slug,
    subtitle: text().nullable().input(z.string().max(300).nullable().optional()).public(),
    description: text().default('').input(z.string().max(20_000).optional()).public(),
    status: content.status,
    level: choice(LEVEL)
      .default('beginner')
      .input(z.enum(LEVEL).optional().describe('Default beginner'))
      .public(),
    price_cents: integer()
      .default(0)
      .input(cents.optional().describe('Price in minor units; 0 = free (default)'))
      .public(),
    currency: text().default('USD').input(currency.optional().describe('Default USD')).public(),
    lecturer_ids: refs().input(z.array(objectIdSchema).max(20).optional()).public(),
    image_url: text().nullable().input(httpUrl.nullable().optional()).public(),
    // When the course was last put live; it stays if the course is later archived.
    published_at: content.publishedAt,
  },
  ...content.area,
  derive: content.stampPublishedAt,
  list: {
    ...NEWEST_FIRST,
    search: { fields: ['title', 'subtitle'], what: 'title and subtitle (case-insensitive)' },
    filters: [
      content.statusFilter,
      enumFilter('level', 'level', LEVEL, 'courses'),
      idFilter('lecturer_id', 'lecturerIds', 'courses taught by the lecturer'),
      ...dateRangeFilters('created', 'createdAt', 'courses created'),
    ],
  },
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
