/**
 * Community members: people in the school's community space (forums, groups), who may or may not be
 * students. Email is unique; a member has a role and a status (active, suspended, left).
 */
import { Schema } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, type Stored } from '../lib/crud.js';
import { dateRangeFilters, enumFilter } from '../lib/filters.js';
import { asDate, idOf, instant, iso, isoRequired, mapInput } from '../lib/wire.js';

const ROLE = ['member', 'moderator', 'host'] as const;
const STATUS = ['active', 'suspended', 'left'] as const;

interface Member {
  email: string;
  name: string;
  role: (typeof ROLE)[number];
  status: (typeof STATUS)[number];
  bio?: string | null;
  joinedAt: Date;
  lastSeenAt?: Date | null;
}

const schema = new Schema<Member>(
  {
    email: { type: String, required: true, unique: true, lowercase: true, trim: true },
    name: { type: String, required: true },
    role: { type: String, enum: ROLE, default: 'member' },
    status: { type: String, enum: STATUS, default: 'active' },
    bio: String,
    joinedAt: { type: Date, required: true, default: () => new Date() },
    lastSeenAt: Date,
  },
  { timestamps: true, versionKey: false },
);

const output = z.strictObject({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLE),
  status: z.enum(STATUS),
  bio: z.string().nullable(),
  joined_at: instant,
  last_seen_at: instant.nullable(),
  created_at: instant,
  updated_at: instant,
});

const create = z.strictObject({
  email: z.email().max(254),
  name: z.string().max(200).trim().min(1),
  role: z.enum(ROLE).optional().describe('Default member'),
  status: z.enum(STATUS).optional().describe('Default active'),
  bio: z.string().max(2000).nullable().optional(),
  joined_at: instant.optional().describe('Default: now'),
});

export default defineCollectionArea<Member>({
  name: 'members',
  noun: 'member',
  schemaName: 'Member',
  description: 'Members of the school community, with their role and status.',
  modelName: 'Member',
  collection: 'members',
  schema,
  output,
  toApi: (d: Stored<Member>) => ({
    id: idOf(d._id),
    email: d.email,
    name: d.name,
    role: d.role,
    status: d.status,
    bio: d.bio ?? null,
    joined_at: isoRequired(d.joinedAt),
    last_seen_at: iso(d.lastSeenAt),
    created_at: isoRequired(d.createdAt),
    updated_at: isoRequired(d.updatedAt),
  }),
  input: {
    create,
    toStore: (i) =>
      mapInput(i, {
        email: ['email', (v) => String(v).toLowerCase()],
        name: 'name',
        role: 'role',
        status: 'status',
        bio: 'bio',
        joined_at: ['joinedAt', asDate],
      }),
  },
  list: {
    sort: { field: 'joinedAt', order: -1, kind: 'date' },
    order: 'most recently joined first',
    search: { fields: ['email', 'name'], what: 'email and name (case-insensitive)' },
    filters: [
      enumFilter('role', 'role', ROLE, 'members'),
      enumFilter('status', 'status', STATUS, 'members'),
      ...dateRangeFilters('joined', 'joinedAt', 'members who joined'),
    ],
  },
  unique: ['email'],
  examples: {
    create: { email: 'new.member@example.com', name: 'Kai Tanaka', role: 'member' },
    update: { role: 'moderator' },
  },
});
