/**
 * Events: live sessions, workshops and meetups, online or in person, with a start and end, a time
 * zone for display, an optional capacity and a registration count. Anonymous visitors see published
 * events; the list is ordered by start time, soonest first.
 */
import { z } from 'zod';
import { defineCollectionArea } from '../lib/crud.js';
import type { Problem } from '../lib/errors.js';
import { choice, computed, instant, integer, text, requiredText } from '../lib/fields.js';
import { dateRangeFilters, enumFilter } from '../lib/filters.js';
import { instant as instantSchema, timezone } from '../lib/wire.js';

const STATUS = ['draft', 'published', 'cancelled'] as const;
const LOCATION = ['online', 'in_person'] as const;

function check(doc: Record<string, unknown>): Problem[] {
  const start = doc.startsAt as Date | undefined;
  const end = doc.endsAt as Date | undefined;
  return start && end && end.getTime() <= start.getTime()
    ? [{ path: 'body.ends_at', message: 'must be after starts_at' }]
    : [];
}

export default defineCollectionArea({
  name: 'events',
  noun: 'event',
  schemaName: 'Event',
  description: 'Live sessions, workshops and meetups with dates, capacity and registrations.',
  fields: {
    title: requiredText().public(),
    description: text().default('').input(z.string().max(20_000).optional()).public(),
    starts_at: instant().required().input(instantSchema).public(),
    ends_at: instant().required().input(instantSchema).public(),
    timezone: text()
      .default('UTC')
      .input(timezone.optional().describe('IANA time zone for display; default UTC'))
      .public(),
    location_type: choice(LOCATION)
      .default('online')
      .input(z.enum(LOCATION).optional().describe('Default online'))
      .public(),
    location: text()
      .nullable()
      .describe('Join URL or address')
      .input(z.string().max(500).nullable().optional())
      .public(),
    capacity: integer()
      .nullable()
      .input(z.number().int().min(1).max(1_000_000).nullable().optional().describe('null: unlimited'))
      .public(),
    spots_left: computed(z.number().int().nullable().describe('null: unlimited'), (d) =>
      d.capacity === null || d.capacity === undefined
        ? null
        : Math.max(0, (d.capacity as number) - ((d.registrationsCount as number | undefined) ?? 0)),
    ).public(),
    registrations_count: integer().default(0),
    status: choice(STATUS).default('draft').input(z.enum(STATUS).optional().describe('Default draft')),
  },
  public: { what: 'published events only', filter: { status: 'published' } },
  check,
  list: {
    sort: { field: 'startsAt', order: 1, kind: 'date' },
    order: 'soonest first',
    search: { fields: ['title'], what: 'event title (case-insensitive)' },
    filters: [
      enumFilter('status', 'status', STATUS, 'events'),
      enumFilter('location_type', 'locationType', LOCATION, 'events'),
      ...dateRangeFilters('starts', 'startsAt', 'events starting'),
    ],
  },
  examples: {
    create: {
      title: 'Live Q&A: shaping and scoring',
      starts_at: '2030-03-01T17:00:00Z',
      ends_at: '2030-03-01T18:00:00Z',
      timezone: 'Europe/Berlin',
      capacity: 50,
    },
    update: { status: 'published' },
  },
});
