/**
 * Digital products: downloads the school sells (e-books, templates, presets). A product has a unique
 * slug, a price and the ids of its files (uploaded through the storage area). Anonymous visitors see
 * published products without the file ids.
 */
import type { Types } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, NEWEST_FIRST } from '../lib/crud.js';
import { integer, refs, text, requiredText } from '../lib/fields.js';
import { objectIdSchema } from '../lib/ids.js';
import { publishedContent } from '../lib/published-content.js';
import { referenceProblems } from '../lib/references.js';
import { cents, currency, httpUrl } from '../lib/wire.js';

const content = publishedContent({ plural: 'products', from: 'title' });

export default defineCollectionArea({
  name: 'digital_products',
  noun: 'digital product',
  schemaName: 'DigitalProduct',
  description: 'Downloadable products (e-books, templates) with their files.',
  fields: {
    title: requiredText().public(),
    slug: content.slug,
    description: text().default('').input(z.string().max(20_000).optional()).public(),
    price_cents: integer().default(0).input(cents.optional().describe('Default 0 (free)')).public(),
    currency: text().default('USD').input(currency.optional().describe('Default USD')).public(),
    file_ids: refs()
      .describe('Ids of files uploaded with POST /api/v1/storage')
      .input(z.array(objectIdSchema).max(50).optional().describe('Ids returned by POST /api/v1/storage')),
    image_url: text().nullable().input(httpUrl.nullable().optional()).public(),
    status: content.status,
  },
  ...content.area,
  check: (doc, connection) =>
    referenceProblems(connection, [
      {
        path: 'body.file_ids',
        collection: 'storage.files',
        ids: doc.fileIds as Types.ObjectId[],
        noun: 'file',
      },
    ]),
  list: {
    ...NEWEST_FIRST,
    search: { fields: ['title'], what: 'title (case-insensitive)' },
    filters: [content.statusFilter],
  },
  examples: {
    create: {
      title: 'Hydration Calculator Sheet',
      price_cents: 900,
      description: 'A spreadsheet for bakers.',
    },
    update: { status: 'published' },
  },
});
