/**
 * Community members: people in the school's community space (forums, groups), who may or may not be
 * students. Email is unique; a member has a role and a status (active, suspended, left).
 */
import { z } from 'zod';
import { defineCollectionArea } from '../lib/crud.js';
import { choice, instant, text, uniqueEmail, requiredText } from '../lib/fields.js';
import { dateRangeFilters, enumFilter } from '../lib/filters.js';
import { instant as instantSchema } from '../lib/wire.js';

const ROLE = ['member', 'moderator', 'host'] as const;
const STATUS = ['active', 'suspended', 'left'] as const;

export default defineCollectionArea({
  name: 'members',
  noun: 'member',
  schemaName: 'Member',
  description: 'Members of the school community, with their role and status.',
  fields: {
    email: uniqueEmail(),
    name: requiredText(),
    role: choice(ROLE).default('member').input(z.enum(ROLE).optional().describe('Default member')),
    status: choice(STATUS).default('active').input(z.enum(STATUS).optional().describe('Default active')),
    bio: text().nullable().input(z.string().max(2000).nullable().optional()),
    joined_at: instant()
      .required()
      .default(() => new Date())
      .input(instantSchema.optional().describe('Default: now')),
    last_seen_at: instant().nullable(),
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
