/**
 * Events: live sessions, workshops and meetups, online or in person, with a start and end, a time
 * zone for display, an optional capacity and a registration count. Anonymous visitors see published
 * events; the list is ordered by start time, soonest first.
 */
import { Schema } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, type Stored } from '../lib/crud.js';
import type { Problem } from '../lib/errors.js';
import { dateRangeFilters, enumFilter } from '../lib/filters.js';
import {
  asDate,
  idOf,
  instant,
  isoRequired,
  managedFields,
  managedShape,
  mapInput,
  timezone,
} from '../lib/wire.js';

const STATUS = ['draft', 'published', 'cancelled'] as const;
const LOCATION = ['online', 'in_person'] as const;

interface Event {
  title: string;
  description: string;
  startsAt: Date;
  endsAt: Date;
  timezone: string;
  locationType: (typeof LOCATION)[number];
  location?: string | null;
  capacity?: number | null;
  registrationsCount: number;
  status: (typeof STATUS)[number];
}

const schema = new Schema<Event>(
  {
    title: { type: String, required: true },
    description: { type: String, default: '' },
    startsAt: { type: Date, required: true },
    endsAt: { type: Date, required: true },
    timezone: { type: String, default: 'UTC' },
    locationType: { type: String, enum: LOCATION, default: 'online' },
    location: String,
    capacity: Number,
    registrationsCount: { type: Number, default: 0 },
    status: { type: String, enum: STATUS, default: 'draft' },
  },
  { timestamps: true, versionKey: false },
);

const publicShape = {
  id: z.string(),
  title: z.string(),
  description: z.string(),
  starts_at: instant,
  ends_at: instant,
  timezone: z.string(),
  location_type: z.enum(LOCATION),
  location: z.string().nullable().describe('Join URL or address'),
  capacity: z.number().int().nullable(),
  spots_left: z.number().int().nullable().describe('null: unlimited'),
};
const publicOutput = z.strictObject(publicShape);
const output = z.strictObject({
  ...publicShape,
  registrations_count: z.number().int(),
  ...managedShape(STATUS),
});

const create = z.strictObject({
  title: z.string().max(200).trim().min(1),
  description: z.string().max(20_000).optional(),
  starts_at: instant,
  ends_at: instant,
  timezone: timezone.optional().describe('IANA time zone for display; default UTC'),
  location_type: z.enum(LOCATION).optional().describe('Default online'),
  location: z.string().max(500).nullable().optional(),
  capacity: z.number().int().min(1).max(1_000_000).nullable().optional().describe('null: unlimited'),
  status: z.enum(STATUS).optional().describe('Default draft'),
});

function check(doc: Record<string, unknown>): Problem[] {
  const start = doc.startsAt as Date | undefined;
  const end = doc.endsAt as Date | undefined;
  return start && end && end.getTime() <= start.getTime()
    ? [{ path: 'body.ends_at', message: 'must be after starts_at' }]
    : [];
}

const publicFields = (d: Stored<Event>) => ({
  id: idOf(d._id),
  title: d.title,
  description: d.description ?? '',
  starts_at: isoRequired(d.startsAt),
  ends_at: isoRequired(d.endsAt),
  timezone: d.timezone,
  location_type: d.locationType,
  location: d.location ?? null,
  capacity: d.capacity ?? null,
  spots_left:
    d.capacity === null || d.capacity === undefined
      ? null
      : Math.max(0, d.capacity - (d.registrationsCount ?? 0)),
});

export default defineCollectionArea<Event>({
  name: 'events',
  noun: 'event',
  schemaName: 'Event',
  description: 'Live sessions, workshops and meetups with dates, capacity and registrations.',
  modelName: 'Event',
  collection: 'events',
  schema,
  output,
  toApi: (d) => ({
    ...publicFields(d),
    registrations_count: d.registrationsCount ?? 0,
    ...managedFields(d),
  }),
  public: {
    what: 'published events only',
    output: publicOutput,
    filter: { status: 'published' },
    toApi: publicFields,
  },
  input: {
    create,
    toStore: (i) =>
      mapInput(i, {
        title: 'title',
        description: 'description',
        starts_at: ['startsAt', asDate],
        ends_at: ['endsAt', asDate],
        timezone: 'timezone',
        location_type: 'locationType',
        location: 'location',
        capacity: 'capacity',
        status: 'status',
      }),
    check,
  },
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
