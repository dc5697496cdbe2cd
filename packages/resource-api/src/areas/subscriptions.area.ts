/**
 * Subscriptions: a student's membership-plan subscription and its billing period. Status follows the
 * usual billing life cycle: trialing → active → past_due → canceled. The student and the plan must
 * exist; the period must end after it starts.
 */
import type { Connection, Types } from 'mongoose';
import { z } from 'zod';
import { defineCollectionArea, NEWEST_FIRST } from '../lib/crud.js';
import type { Problem } from '../lib/errors.js';
import { choice, flag, instant, ref } from '../lib/fields.js';
import { dateRangeFilters, enumFilter, idFilter } from '../lib/filters.js';
import { objectIdSchema } from '../lib/ids.js';
import { referenceProblems } from '../lib/references.js';
import { instant as instantSchema } from '../lib/wire.js';

const STATUS = ['trialing', 'active', 'past_due', 'canceled'] as const;

async function check(doc: Record<string, unknown>, connection: Connection): Promise<Problem[]> {
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

export default defineCollectionArea({
  name: 'subscriptions',
  noun: 'subscription',
  schemaName: 'Subscription',
  description: 'Students’ membership-plan subscriptions and their billing periods.',
  fields: {
    student_id: ref().required().with({ index: true }).input(objectIdSchema),
    plan_id: ref().required().with({ index: true }).input(objectIdSchema),
    status: choice(STATUS).default('active').input(z.enum(STATUS).optional().describe('Default active')),
    current_period_start: instant().required().input(instantSchema),
    current_period_end: instant().required().input(instantSchema),
    cancel_at_period_end: flag().default(false).input(z.boolean().optional()),
    canceled_at: instant().nullable().input(instantSchema.nullable().optional()),
  },
  derive(stored, input) {
    if (input.status === 'canceled' && input.canceled_at === undefined) stored.canceledAt = new Date();
  },
  check,
  list: {
    ...NEWEST_FIRST,
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
