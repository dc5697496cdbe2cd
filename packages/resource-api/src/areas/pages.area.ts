/**
 * Pages: the school's website pages (home, about, FAQ, terms), with a unique slug, a Markdown body and
 * SEO fields. Anonymous visitors see published pages.
 */
import { z } from 'zod';
import { defineCollectionArea, NEWEST_FIRST } from '../lib/crud.js';
import { text, requiredText } from '../lib/fields.js';
import { publishedContent } from '../lib/published-content.js';

const content = publishedContent({ statuses: ['draft', 'published'], plural: 'pages', from: 'title' });

export default defineCollectionArea({
  name: 'pages',
  noun: 'page',
  schemaName: 'Page',
  description: 'Website pages of the school (about, FAQ, terms) with SEO fields.',
  fields: {
    title: requiredText().public(),
    slug: content.slug,
    body: text().default('').describe('Markdown').input(z.string().max(200_000).optional()).public(),
    seo_title: text().nullable().input(z.string().max(70).nullable().optional()).public(),
    seo_description: text().nullable().input(z.string().max(160).nullable().optional()).public(),
    published_at: content.publishedAt,
    status: content.status,
  },
  ...content.area,
  derive: content.stampPublishedAt,
  list: {
    ...NEWEST_FIRST,
    search: { fields: ['title'], what: 'title (case-insensitive)' },
    filters: [content.statusFilter],
  },
  examples: {
    create: { title: 'Refund policy', body: 'Full refund within 30 days.' },
    update: { status: 'published', seo_title: 'Refunds' },
  },
});
