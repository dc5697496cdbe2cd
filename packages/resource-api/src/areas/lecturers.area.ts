/**
 * Lecturers: the people who teach (course `lecturer_ids`, post `author_id`). Email is unique and never
 * shown to anonymous visitors, who see the profiles marked visible.
 */
import { Schema } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, type Stored } from '../lib/crud.js';
import { httpUrl, idOf, instant, isoRequired, mapInput } from '../lib/wire.js';

interface Lecturer {
  name: string;
  email: string;
  headline: string;
  bio: string;
  avatarUrl?: string | null;
  websiteUrl?: string | null;
  visible: boolean;
}

const schema = new Schema<Lecturer>(
  {
    name: { type: String, required: true },
    email: { type: String, required: true, unique: true, lowercase: true, trim: true },
    headline: { type: String, default: '' },
    bio: { type: String, default: '' },
    avatarUrl: String,
    websiteUrl: String,
    visible: { type: Boolean, default: true },
  },
  { timestamps: true, versionKey: false },
);

const publicShape = {
  id: z.string(),
  name: z.string(),
  headline: z.string(),
  bio: z.string(),
  avatar_url: z.string().nullable(),
  website_url: z.string().nullable(),
};
const publicOutput = z.strictObject(publicShape);
const output = z.strictObject({
  ...publicShape,
  email: z.string(),
  visible: z.boolean().describe('Shown on the public site'),
  created_at: instant,
  updated_at: instant,
});

const create = z.strictObject({
  name: z.string().max(200).trim().min(1),
  email: z.email().max(254),
  headline: z.string().max(200).optional(),
  bio: z.string().max(10_000).optional(),
  avatar_url: httpUrl.nullable().optional(),
  website_url: httpUrl.nullable().optional(),
  visible: z.boolean().optional().describe('Default true'),
});

const publicFields = (d: Stored<Lecturer>) => ({
  id: idOf(d._id),
  name: d.name,
  headline: d.headline ?? '',
  bio: d.bio ?? '',
  avatar_url: d.avatarUrl ?? null,
  website_url: d.websiteUrl ?? null,
});

export default defineCollectionArea<Lecturer>({
  name: 'lecturers',
  noun: 'lecturer',
  schemaName: 'Lecturer',
  description: 'The school’s lecturers and their public profiles.',
  modelName: 'Lecturer',
  collection: 'lecturers',
  schema,
  output,
  toApi: (d) => ({
    ...publicFields(d),
    email: d.email,
    visible: d.visible,
    created_at: isoRequired(d.createdAt),
    updated_at: isoRequired(d.updatedAt),
  }),
  public: {
    what: 'visible lecturers only',
    output: publicOutput,
    filter: { visible: true },
    toApi: publicFields,
  },
  input: {
    create,
    toStore: (i) =>
      mapInput(i, {
        name: 'name',
        email: ['email', (v) => String(v).toLowerCase()],
        headline: 'headline',
        bio: 'bio',
        avatar_url: 'avatarUrl',
        website_url: 'websiteUrl',
        visible: 'visible',
      }),
  },
  list: {
    sort: { field: 'name', order: 1, kind: 'string' },
    order: 'by name',
    search: { fields: ['name', 'email', 'headline'], what: 'name, email and headline (case-insensitive)' },
    filters: [
      {
        param: 'visible',
        schema: z
          .enum(['true', 'false'])
          .optional()
          .describe('Only visible (true) or hidden (false) lecturers'),
        toFilter: (v) => ({ visible: v === 'true' }),
      },
    ],
  },
  unique: ['email'],
  examples: {
    create: { name: 'Jonas Weber', email: 'jonas.weber@example.com', headline: 'Pastry chef' },
    update: { bio: 'Twenty years of viennoiserie.' },
  },
});
