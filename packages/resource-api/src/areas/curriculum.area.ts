/**
 * Curriculum: the sections of a course, each an ordered list of lessons (video, text, quiz, download,
 * live session). A section belongs to one course (`course_id`, checked to exist) and has a position
 * within it; list with `course_id` to get a course's outline in order. Lessons are replaced as a
 * whole on update; a lesson keeps its id when the update sends it back.
 */
import { Schema, Types } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, type Stored } from '../lib/crud.js';
import { idFilter } from '../lib/filters.js';
import { isObjectId, objectIdSchema } from '../lib/ids.js';
import { referenceProblems } from '../lib/references.js';
import { asId, httpUrl, idOf, instant, isoRequired, mapInput } from '../lib/wire.js';

const KIND = ['video', 'text', 'quiz', 'download', 'live'] as const;

interface Lesson {
  _id: Types.ObjectId;
  title: string;
  kind: (typeof KIND)[number];
  durationMinutes?: number | null;
  content?: string | null;
  videoUrl?: string | null;
  freePreview: boolean;
}

interface Section {
  courseId: Types.ObjectId;
  title: string;
  position: number;
  lessons: Lesson[];
}

const schema = new Schema<Section>(
  {
    courseId: { type: Schema.Types.ObjectId, required: true, index: true },
    title: { type: String, required: true },
    position: { type: Number, required: true, default: 0 },
    lessons: {
      type: [
        new Schema<Lesson>({
          title: { type: String, required: true },
          kind: { type: String, enum: KIND, default: 'video' },
          durationMinutes: Number,
          content: String,
          videoUrl: String,
          freePreview: { type: Boolean, default: false },
        }),
      ],
      default: [],
    },
  },
  { timestamps: true, versionKey: false },
);

const lessonOut = z.strictObject({
  id: z.string(),
  position: z.number().int(),
  title: z.string(),
  kind: z.enum(KIND),
  duration_minutes: z.number().nullable(),
  content: z.string().nullable(),
  video_url: z.string().nullable(),
  free_preview: z.boolean(),
});

const output = z.strictObject({
  id: z.string(),
  course_id: z.string(),
  title: z.string(),
  position: z.number().int(),
  lessons: z.array(lessonOut),
  total_duration_minutes: z.number(),
  created_at: instant,
  updated_at: instant,
});

const lessonIn = z.strictObject({
  id: objectIdSchema.optional().describe('Send back to keep a lesson’s id on update'),
  title: z.string().max(200).trim().min(1),
  kind: z.enum(KIND).optional().describe('Default video'),
  duration_minutes: z
    .number()
    .int()
    .min(0)
    .max(24 * 60)
    .nullable()
    .optional(),
  content: z.string().max(100_000).nullable().optional(),
  video_url: httpUrl.nullable().optional(),
  free_preview: z.boolean().optional().describe('Visible before purchase; default false'),
});

const create = z.strictObject({
  course_id: objectIdSchema,
  title: z.string().max(200).trim().min(1),
  position: z.number().int().min(0).max(10_000).optional().describe('Order within the course; default 0'),
  lessons: z.array(lessonIn).max(200).optional().describe('In order; replaces all lessons on update'),
});

const toLesson = (l: Record<string, unknown>) => ({
  _id: isObjectId(l.id) ? new Types.ObjectId(l.id) : new Types.ObjectId(),
  title: l.title,
  kind: l.kind ?? 'video',
  durationMinutes: l.duration_minutes ?? null,
  content: l.content ?? null,
  videoUrl: l.video_url ?? null,
  freePreview: l.free_preview ?? false,
});

export default defineCollectionArea<Section>({
  name: 'curriculum',
  noun: 'curriculum section',
  schemaName: 'CurriculumSection',
  description: 'The curriculum of each course: ordered sections of lessons.',
  modelName: 'CurriculumSection',
  collection: 'curriculum_sections',
  schema,
  output,
  toApi: (d: Stored<Section>) => ({
    id: idOf(d._id),
    course_id: idOf(d.courseId),
    title: d.title,
    position: d.position,
    lessons: (d.lessons ?? []).map((l, position) => ({
      id: idOf(l._id),
      position,
      title: l.title,
      kind: l.kind,
      duration_minutes: l.durationMinutes ?? null,
      content: l.content ?? null,
      video_url: l.videoUrl ?? null,
      free_preview: l.freePreview ?? false,
    })),
    total_duration_minutes: (d.lessons ?? []).reduce((sum, l) => sum + (l.durationMinutes ?? 0), 0),
    created_at: isoRequired(d.createdAt),
    updated_at: isoRequired(d.updatedAt),
  }),
  input: {
    create,
    toStore: (i) =>
      mapInput(i, {
        course_id: ['courseId', asId],
        title: 'title',
        position: 'position',
        lessons: ['lessons', (v) => (v as Record<string, unknown>[]).map(toLesson)],
      }),
    check: (doc, connection) =>
      referenceProblems(connection, [
        {
          path: 'body.course_id',
          collection: 'courses',
          ids: doc.courseId as Types.ObjectId,
          noun: 'course',
        },
      ]),
  },
  list: {
    sort: { field: 'position', order: 1, kind: 'number' },
    order: 'by position',
    search: { fields: ['title'], what: 'section title (case-insensitive)' },
    filters: [idFilter('course_id', 'courseId', 'sections of the course')],
  },
  examples: {
    create: {
      course_id: '{ref:courses}',
      title: 'Getting started',
      position: 0,
      lessons: [
        { title: 'Welcome', kind: 'video', duration_minutes: 4, free_preview: true },
        { title: 'What you will need', kind: 'text', content: 'A scale, a bowl and patience.' },
      ],
    },
    update: { title: 'Getting started (updated)' },
  },
});
