/**
 * Curriculum: the sections of a course, each an ordered list of lessons (video, text, quiz, download,
 * live session). A section belongs to one course (`course_id`, checked to exist) and has a position
 * within it; list with `course_id` to get a course's outline in order. Lessons are replaced as a
 * whole on update; a lesson keeps its id when the update sends it back.
 */
import { Schema, Types } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea } from '../lib/crud.js';
import { computed, custom, integer, ref, requiredText } from '../lib/fields.js';
import { idFilter } from '../lib/filters.js';
import { isObjectId, objectIdSchema } from '../lib/ids.js';
import { referenceProblems } from '../lib/references.js';
import { httpUrl, idOf } from '../lib/wire.js';

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

const lessonSchema = new Schema<Lesson>({
  title: { type: String, required: true },
  kind: { type: String, enum: KIND, default: 'video' },
  durationMinutes: Number,
  content: String,
  videoUrl: String,
  freePreview: { type: Boolean, default: false },
});

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

const lessons = custom({
  out: z.array(lessonOut),
  store: { type: [lessonSchema], default: [] },
  toApi: (v) =>
    ((v as Lesson[] | undefined) ?? []).map((l, position) => ({
      id: idOf(l._id),
      position,
      title: l.title,
      kind: l.kind,
      duration_minutes: l.durationMinutes ?? null,
      content: l.content ?? null,
      video_url: l.videoUrl ?? null,
      free_preview: l.freePreview ?? false,
    })),
  toStore: (v) =>
    (v as Record<string, unknown>[]).map((l) => ({
      _id: isObjectId(l.id) ? new Types.ObjectId(l.id) : new Types.ObjectId(),
      title: l.title,
      kind: l.kind ?? 'video',
      durationMinutes: l.duration_minutes ?? null,
      content: l.content ?? null,
      videoUrl: l.video_url ?? null,
      freePreview: l.free_preview ?? false,
    })),
});

export default defineCollectionArea({
  name: 'curriculum',
  noun: 'curriculum section',
  schemaName: 'CurriculumSection',
  description: 'The curriculum of each course: ordered sections of lessons.',
  collection: 'curriculum_sections',
  fields: {
    course_id: ref().required().with({ index: true }).input(objectIdSchema),
    title: requiredText(),
    position: integer()
      .required()
      .default(0)
      .input(z.number().int().min(0).max(10_000).optional().describe('Order within the course; default 0')),
    lessons: lessons.input(
      z.array(lessonIn).max(200).optional().describe('In order; replaces all lessons on update'),
    ),
    total_duration_minutes: computed(z.number(), (d) =>
      ((d.lessons as Lesson[] | undefined) ?? []).reduce((sum, l) => sum + (l.durationMinutes ?? 0), 0),
    ),
  },
  check: (doc, connection) =>
    referenceProblems(connection, [
      {
        path: 'body.course_id',
        collection: 'courses',
        ids: doc.courseId as Types.ObjectId,
        noun: 'course',
      },
    ]),
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
