/**
 * Students: people who buy and take courses. Email is unique (stored lowercase). Each student carries
 * their enrollments (course, when, progress 0-100, completion) — the data the analytics area counts.
 */
import { Schema, type Types } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, NEWEST_FIRST } from '../lib/crud.js';
import { choice, custom, instant, texts, uniqueEmail, requiredText } from '../lib/fields.js';
import { dateRangeFilters, enumFilter, idFilter, stringFilter } from '../lib/filters.js';
import { objectIdSchema } from '../lib/ids.js';
import { referenceProblems } from '../lib/references.js';
import { idOf, instant as instantSchema, iso, isoRequired, toObjectIds } from '../lib/wire.js';

const STATUS = ['active', 'suspended'] as const;

interface Enrollment {
  courseId: Types.ObjectId;
  enrolledAt: Date;
  progressPercent: number;
  completedAt?: Date | null;
  lastActivityAt?: Date | null;
}

const enrollmentSchema = new Schema<Enrollment>(
  {
    courseId: { type: Schema.Types.ObjectId, required: true },
    enrolledAt: { type: Date, required: true },
    progressPercent: { type: Number, default: 0 },
    completedAt: Date,
    lastActivityAt: Date,
  },
  { _id: false },
);

const enrollmentOut = z.strictObject({
  course_id: z.string(),
  enrolled_at: instantSchema,
  progress_percent: z.number().min(0).max(100),
  completed_at: instantSchema.nullable(),
  last_activity_at: instantSchema.nullable(),
});

const enrollmentIn = z.strictObject({
  course_id: objectIdSchema,
  enrolled_at: instantSchema.optional().describe('Default: now'),
  progress_percent: z.number().min(0).max(100).optional().describe('Default 0'),
  completed_at: instantSchema.nullable().optional(),
});

const toEnrollment = (e: Record<string, unknown>): Enrollment => ({
  courseId: toObjectIds([e.course_id as string])[0]!,
  enrolledAt: e.enrolled_at ? new Date(e.enrolled_at as string) : new Date(),
  progressPercent: (e.progress_percent as number | undefined) ?? 0,
  completedAt: e.completed_at ? new Date(e.completed_at as string) : null,
  // Not an input (the seed sets it); left out when absent.
  ...(e.last_activity_at === undefined
    ? {}
    : { lastActivityAt: e.last_activity_at ? new Date(e.last_activity_at as string) : null }),
});

const enrollments = custom({
  out: z.array(enrollmentOut),
  store: { type: [enrollmentSchema], default: [] },
  toApi: (v) =>
    ((v as Enrollment[] | undefined) ?? []).map((e) => ({
      course_id: idOf(e.courseId),
      enrolled_at: isoRequired(e.enrolledAt),
      progress_percent: e.progressPercent,
      completed_at: iso(e.completedAt),
      last_activity_at: iso(e.lastActivityAt),
    })),
  toStore: (v) => (v as Record<string, unknown>[]).map(toEnrollment),
});

export default defineCollectionArea({
  name: 'students',
  noun: 'student',
  schemaName: 'Student',
  description: 'Students of the school with their course enrollments and progress.',
  fields: {
    email: uniqueEmail(),
    name: requiredText(),
    status: choice(STATUS).default('active').input(z.enum(STATUS).optional().describe('Default active')),
    tags: texts().input(z.array(z.string().max(50).trim().min(1)).max(20).optional()),
    enrollments: enrollments.input(
      z
        .array(enrollmentIn)
        .max(200)
        .optional()
        .describe('Replaces all enrollments when given; one per course'),
    ),
    last_active_at: instant().nullable(),
  },
  async check(doc, connection) {
    const list = (doc.enrollments as Enrollment[] | undefined) ?? [];
    const ids = list.map((e) => String(e.courseId));
    const problems =
      ids.length !== new Set(ids).size
        ? [{ path: 'body.enrollments', message: 'a course may appear only once' }]
        : [];
    return [
      ...problems,
      ...(await referenceProblems(connection, [
        {
          path: 'body.enrollments',
          collection: 'courses',
          ids: list.map((e) => e.courseId),
          noun: 'course',
        },
      ])),
    ];
  },
  list: {
    ...NEWEST_FIRST,
    search: { fields: ['email', 'name'], what: 'email and name (case-insensitive)' },
    filters: [
      stringFilter('email', 'email', 'students', (s) => s.toLowerCase()),
      enumFilter('status', 'status', STATUS, 'students'),
      idFilter('course_id', 'enrollments.courseId', 'students enrolled in the course'),
      ...dateRangeFilters('created', 'createdAt', 'students who signed up'),
    ],
  },
  unique: ['email'],
  examples: {
    create: { email: 'new.student@example.com', name: 'Noor Haddad', tags: ['newsletter'] },
    update: { name: 'Noor H. Haddad', tags: ['newsletter', 'vip'] },
  },
});
