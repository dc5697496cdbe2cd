/**
 * Students: people who buy and take courses. Email is unique (stored lowercase). Each student carries
 * their enrollments (course, when, progress 0-100, completion) — the data the analytics area counts.
 */
import { Schema, type Types } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, type Stored } from '../lib/crud.js';
import { dateRangeFilters, enumFilter, idFilter, stringFilter } from '../lib/filters.js';
import { objectIdSchema } from '../lib/ids.js';
import { referenceProblems } from '../lib/references.js';
import { idOf, instant, iso, isoRequired, mapInput, toObjectIds } from '../lib/wire.js';

const STATUS = ['active', 'suspended'] as const;

interface Enrollment {
  courseId: Types.ObjectId;
  enrolledAt: Date;
  progressPercent: number;
  completedAt?: Date | null;
  lastActivityAt?: Date | null;
}

interface Student {
  email: string;
  name: string;
  status: (typeof STATUS)[number];
  tags: string[];
  enrollments: Enrollment[];
  lastActiveAt?: Date | null;
}

const schema = new Schema<Student>(
  {
    email: { type: String, required: true, unique: true, lowercase: true, trim: true },
    name: { type: String, required: true },
    status: { type: String, enum: STATUS, default: 'active' },
    tags: { type: [String], default: [] },
    enrollments: {
      type: [
        new Schema<Enrollment>(
          {
            courseId: { type: Schema.Types.ObjectId, required: true },
            enrolledAt: { type: Date, required: true },
            progressPercent: { type: Number, default: 0 },
            completedAt: Date,
            lastActivityAt: Date,
          },
          { _id: false },
        ),
      ],
      default: [],
    },
    lastActiveAt: Date,
  },
  { timestamps: true, versionKey: false },
);

const enrollmentOut = z.strictObject({
  course_id: z.string(),
  enrolled_at: instant,
  progress_percent: z.number().min(0).max(100),
  completed_at: instant.nullable(),
  last_activity_at: instant.nullable(),
});

const output = z.strictObject({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  status: z.enum(STATUS),
  tags: z.array(z.string()),
  enrollments: z.array(enrollmentOut),
  last_active_at: instant.nullable(),
  created_at: instant,
  updated_at: instant,
});

const enrollmentIn = z.strictObject({
  course_id: objectIdSchema,
  enrolled_at: instant.optional().describe('Default: now'),
  progress_percent: z.number().min(0).max(100).optional().describe('Default 0'),
  completed_at: instant.nullable().optional(),
});

const create = z.strictObject({
  email: z.email().max(254),
  name: z.string().max(200).trim().min(1),
  status: z.enum(STATUS).optional().describe('Default active'),
  tags: z.array(z.string().max(50).trim().min(1)).max(20).optional(),
  enrollments: z
    .array(enrollmentIn)
    .max(200)
    .optional()
    .describe('Replaces all enrollments when given; one per course'),
});

const toEnrollment = (e: Record<string, unknown>): Enrollment => ({
  courseId: toObjectIds([e.course_id as string])[0]!,
  enrolledAt: e.enrolled_at ? new Date(e.enrolled_at as string) : new Date(),
  progressPercent: (e.progress_percent as number | undefined) ?? 0,
  completedAt: e.completed_at ? new Date(e.completed_at as string) : null,
});

export default defineCollectionArea<Student>({
  name: 'students',
  noun: 'student',
  schemaName: 'Student',
  description: 'Students of the school with their course enrollments and progress.',
  modelName: 'Student',
  collection: 'students',
  schema,
  output,
  toApi: (d: Stored<Student>) => ({
    id: idOf(d._id),
    email: d.email,
    name: d.name,
    status: d.status,
    tags: d.tags ?? [],
    enrollments: (d.enrollments ?? []).map((e) => ({
      course_id: idOf(e.courseId),
      enrolled_at: isoRequired(e.enrolledAt),
      progress_percent: e.progressPercent,
      completed_at: iso(e.completedAt),
      last_activity_at: iso(e.lastActivityAt),
    })),
    last_active_at: iso(d.lastActiveAt),
    created_at: isoRequired(d.createdAt),
    updated_at: isoRequired(d.updatedAt),
  }),
  input: {
    create,
    toStore: (i) =>
      mapInput(i, {
        email: ['email', (v) => String(v).toLowerCase()],
        name: 'name',
        status: 'status',
        tags: 'tags',
        enrollments: ['enrollments', (v) => (v as Record<string, unknown>[]).map(toEnrollment)],
      }),
    async check(doc, connection) {
      const enrollments = (doc.enrollments as Enrollment[] | undefined) ?? [];
      const ids = enrollments.map((e) => String(e.courseId));
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
            ids: enrollments.map((e) => e.courseId),
            noun: 'course',
          },
        ])),
      ];
    },
  },
  list: {
    sort: { field: 'createdAt', order: -1, kind: 'date' },
    order: 'newest first',
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
