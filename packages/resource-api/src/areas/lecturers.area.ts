/**
 * Lecturers: the people who teach (course `lecturer_ids`, post `author_id`). Email is unique and never
 * shown to anonymous visitors, who see the profiles marked visible.
 */
import { z } from 'zod';
import { defineCollectionArea } from '../lib/crud.js';
import { flag, text, uniqueEmail, requiredText } from '../lib/fields.js';
import { flagFilter } from '../lib/filters.js';
import { httpUrl } from '../lib/wire.js';

export default defineCollectionArea({
  name: 'lecturers',
  noun: 'lecturer',
  schemaName: 'Lecturer',
  description: 'The school’s lecturers and their public profiles.',
  fields: {
    name: requiredText().public(),
    email: uniqueEmail(),
    headline: text().default('').input(z.string().max(200).optional()).public(),
    bio: text().default('').input(z.string().max(10_000).optional()).public(),
    avatar_url: text().nullable().input(httpUrl.nullable().optional()).public(),
    website_url: text().nullable().input(httpUrl.nullable().optional()).public(),
    visible: flag()
      .default(true)
      .describe('Shown on the public site')
      .input(z.boolean().optional().describe('Default true')),
  },
  public: { what: 'visible lecturers only', filter: { visible: true } },
  list: {
    sort: { field: 'name', order: 1, kind: 'string' },
    order: 'by name',
    search: { fields: ['name', 'email', 'headline'], what: 'name, email and headline (case-insensitive)' },
    filters: [flagFilter('visible', 'visible', 'Only visible (true) or hidden (false) lecturers')],
  },
  unique: ['email'],
  examples: {
    create: { name: 'Jonas Weber', email: 'jonas.weber@example.com', headline: 'Pastry chef' },
    update: { bio: 'Twenty years of viennoiserie.' },
  },
});
