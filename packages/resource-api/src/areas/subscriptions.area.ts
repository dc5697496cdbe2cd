/**
 * Subscriptions: a student's membership-plan subscription and its billing period. Status follows the
 * usual billing life cycle: trialing → active → past_due → canceled. The student and the plan must
 * exist; the period must end after it starts.
 */
import { Schema, type Types } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, type Stored } from '../lib/crud.js';
import type { Problem } from '../lib/errors.js';
import { dateRangeFilters, enumFilter, idFilter } from '../lib/filters.js';
import { objectIdSchema } from '../lib/ids.js';
import { referenceProblems } from '../lib/references.js';
import { asDate, asId, idOf, instant, iso, isoRequired, mapInput } from '../lib/wire.js';

const STATUS = ['trialing', 'active', 'past_due', 'canceled'] as const;

interface Subscription {
  studentId: Types.ObjectId;
  planId: Types.ObjectId;
  status: (typeof STATUS)[number];
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  cancelAtPeriodEnd: boolean;
  canceledAt?: Date | null;
}

const schema = new Schema<Subscription>(
  {
    studentId: { type: Schema.Types.ObjectId, required: true, index: true },
    planId: { type: Schema.Types.ObjectId, required: true, index: true },
    status: { type: String, enum: STATUS, default: 'active' },
    currentPeriodStart: { type: Date, required: true },
    currentPeriodEnd: { type: Date, required: true },
    cancelAtPeriodEnd: { type: Boolean, default: false },
    canceledAt: Date,
  },
  { timestamps: true, versionKey: false },
);

const output = z.strictObject({
  id: z.string(),
  student_id: z.string(),
  plan_id: z.string(),
  status: z.enum(STATUS),
  current_period_start: instant,
  current_period_end: instant,
  cancel_at_period_end: z.boolean(),
  canceled_at: instant.nullable(),
  created_at: instant,
  updated_at: instant,
});

const create = z.strictObject({
  student_id: objectIdSchema,
  plan_id: objectIdSchema,
  status: z.enum(STATUS).optional().describe('Default active'),
  current_period_start: instant,
  current_period_end: instant,
  cancel_at_period_end: z.boolean().optional(),
  canceled_at: instant.nullable().optional(),
});

async function check(
  doc: Record<string, unknown>,
  connection: Parameters<typeof referenceProblems>[0],
): Promise<Problem[]> {
  const problems: Problem[] = [];
  const start = doc.currentPeriodStart as Date | undefined;
  const end = doc.currentPeriodEnd as Date | undefined;
  if (start && end && end.getTime() <= start.getTime())
    problems.push({ path: 'body.current_period_end', message: 'must be after current_period_start' });
  problems.push(
    ...(await referenceProblems(connection, [
      {
        path: 'body.student_id',
        collection: 'students',
        ids: doc.studentId as Types.ObjectId,
        noun: 'student',
      },
      {
        path: 'body.plan_id',
        collection: 'membership_plans',
        ids: doc.planId as Types.ObjectId,
        noun: 'membership plan',
      },
    ])),
  );
  return problems;
}

export default defineCollectionArea<Subscription>({
  name: 'subscriptions',
  noun: 'subscription',
  schemaName: 'Subscription',
  description: 'Students’ membership-plan subscriptions and their billing periods.',
  modelName: 'Subscription',
  collection: 'subscriptions',
  schema,
  output,
  toApi: (d: Stored<Subscription>) => ({
    id: idOf(d._id),
    student_id: idOf(d.studentId),
    plan_id: idOf(d.planId),
    status: d.status,
    current_period_start: isoRequired(d.currentPeriodStart),
    current_period_end: isoRequired(d.currentPeriodEnd),
    cancel_at_period_end: d.cancelAtPeriodEnd ?? false,
    canceled_at: iso(d.canceledAt),
    created_at: isoRequired(d.createdAt),
    updated_at: isoRequired(d.updatedAt),
  }),
  input: {
    create,
    toStore: (i) => {
      const stored = mapInput(i, {
        student_id: ['studentId', asId],
        plan_id: ['planId', asId],
        status: 'status',
        current_period_start: ['currentPeriodStart', asDate],
        current_period_end: ['currentPeriodEnd', asDate],
        cancel_at_period_end: 'cancelAtPeriodEnd',
        canceled_at: ['canceledAt', asDate],
      });
      if (i.status === 'canceled' && i.canceled_at === undefined) stored.canceledAt = new Date();
      return stored;
    },
    check,
  },
  list: {
    sort: { field: 'createdAt', order: -1, kind: 'date' },
    order: 'newest first',
    filters: [
      enumFilter('status', 'status', STATUS, 'subscriptions'),
      idFilter('student_id', 'studentId', 'subscriptions of the student'),
      idFilter('plan_id', 'planId', 'subscriptions to the plan'),
      ...dateRangeFilters('period_end', 'currentPeriodEnd', 'subscriptions whose period ends'),
    ],
  },
  examples: {
    create: {
      student_id: '{ref:students}',
      plan_id: '{ref:membership_plans}',
      status: 'trialing',
      current_period_start: '2025-01-01T00:00:00Z',
      current_period_end: '2025-02-01T00:00:00Z',
    },
    update: { cancel_at_period_end: true },
  },
});
