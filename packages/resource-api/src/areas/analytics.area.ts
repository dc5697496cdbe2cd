/**
 * Analytics: figures computed from the stored orders and enrollments over a date range (default: the
 * last 30 days; at most 366 days), in the school's currency, by UTC day.
 *
 * - revenue: paid and later-refunded orders by `paid_at` (gross), refunds, net, average order value;
 * - learning: enrollments started, courses completed, new students, active students (any enrollment
 *   activity in the range);
 * - a daily series and the top courses by revenue (line-item list prices) and enrollments.
 *
 * Computed in Node over range-bounded queries rather than with aggregation pipelines: FerretDB (the
 * local MongoDB-protocol server) implements only part of the aggregation language, and this keeps one
 * code path correct on both it and MongoDB.
 */
import { Types } from 'mongoose';
import { z } from 'zod';
import { InvalidRequestError } from '../lib/errors.js';
import { dateParam } from '../lib/filters.js';
import type { AreaModule, OperationContext } from '../lib/operation.js';
import { instant } from '../lib/wire.js';

const DAY = 86_400_000;

const query = z.strictObject({
  from: dateParam.optional().describe('Start (inclusive); default: 30 days before `to`'),
  to: dateParam.optional().describe('End (exclusive); default: now'),
});

const output = z.strictObject({
  from: instant,
  to: instant,
  currency: z.string(),
  revenue: z.strictObject({
    gross_cents: z.number().int(),
    refunded_cents: z.number().int(),
    net_cents: z.number().int(),
    orders_count: z.number().int(),
    refunds_count: z.number().int(),
    average_order_value_cents: z.number().int(),
  }),
  learning: z.strictObject({
    enrollments_count: z.number().int(),
    completions_count: z.number().int(),
    new_students_count: z.number().int(),
    active_students_count: z.number().int(),
  }),
  daily: z.array(
    z.strictObject({
      date: z.iso.date(),
      gross_cents: z.number().int(),
      orders_count: z.number().int(),
      enrollments_count: z.number().int(),
    }),
  ),
  top_courses: z.array(
    z.strictObject({
      course_id: z.string(),
      title: z.string(),
      revenue_cents: z.number().int(),
      enrollments_count: z.number().int(),
    }),
  ),
});

interface OrderRow {
  totalCents: number;
  currency: string;
  status: string;
  paidAt: Date;
  items?: {
    kind: string;
    productId: Types.ObjectId;
    title: string;
    unitPriceCents: number;
    quantity: number;
  }[];
}
interface StudentRow {
  enrollments?: {
    courseId: Types.ObjectId;
    enrolledAt?: Date;
    completedAt?: Date | null;
    lastActivityAt?: Date | null;
  }[];
}

function range(ctx: OperationContext): { from: Date; to: Date } {
  const to = ctx.query.to ? new Date(ctx.query.to as string) : new Date();
  const from = ctx.query.from ? new Date(ctx.query.from as string) : new Date(to.getTime() - 30 * DAY);
  if (from.getTime() >= to.getTime())
    throw new InvalidRequestError([{ path: 'query.from', message: 'must be before to' }]);
  if (to.getTime() - from.getTime() > 366 * DAY)
    throw new InvalidRequestError([{ path: 'query.from', message: 'the range may span at most 366 days' }]);
  return { from, to };
}

const inRange = (d: Date | null | undefined, from: Date, to: Date) =>
  !!d && new Date(d).getTime() >= from.getTime() && new Date(d).getTime() < to.getTime();
const dayOf = (d: Date) => new Date(d).toISOString().slice(0, 10);

async function summary(ctx: OperationContext) {
  const { from, to } = range(ctx);
  const db = ctx.services.connection;
  const school = await db.collection<{ _id: string; currency?: string }>('school').findOne({ _id: 'school' });
  const currency = school?.currency ?? 'USD';

  const days = new Map<string, { gross_cents: number; orders_count: number; enrollments_count: number }>();
  for (
    let t = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate());
    t < to.getTime();
    t += DAY
  )
    days.set(dayOf(new Date(t)), { gross_cents: 0, orders_count: 0, enrollments_count: 0 });
  const courses = new Map<string, { title: string; revenue_cents: number; enrollments_count: number }>();
  const course = (id: string, title = '') => {
    let c = courses.get(id);
    if (!c) courses.set(id, (c = { title, revenue_cents: 0, enrollments_count: 0 }));
    if (!c.title && title) c.title = title;
    return c;
  };

  const revenue = {
    gross_cents: 0,
    refunded_cents: 0,
    net_cents: 0,
    orders_count: 0,
    refunds_count: 0,
    average_order_value_cents: 0,
  };
  const orders = db
    .collection<OrderRow>('orders')
    .find(
      { status: { $in: ['paid', 'refunded'] }, currency, paidAt: { $gte: from, $lt: to } },
      { projection: { totalCents: 1, currency: 1, status: 1, paidAt: 1, items: 1 } },
    );
  for await (const o of orders) {
    revenue.gross_cents += o.totalCents;
    revenue.orders_count += 1;
    if (o.status === 'refunded') {
      revenue.refunded_cents += o.totalCents;
      revenue.refunds_count += 1;
    }
    const day = days.get(dayOf(o.paidAt));
    if (day) {
      day.gross_cents += o.totalCents;
      day.orders_count += 1;
    }
    for (const item of o.items ?? [])
      if (item.kind === 'course')
        course(String(item.productId), item.title).revenue_cents += item.unitPriceCents * item.quantity;
  }
  revenue.net_cents = revenue.gross_cents - revenue.refunded_cents;
  revenue.average_order_value_cents = revenue.orders_count
    ? Math.round(revenue.gross_cents / revenue.orders_count)
    : 0;

  const learning = {
    enrollments_count: 0,
    completions_count: 0,
    new_students_count: 0,
    active_students_count: 0,
  };
  learning.new_students_count = await db
    .collection('students')
    .countDocuments({ createdAt: { $gte: from, $lt: to } });
  const window = { $gte: from, $lt: to };
  const students = db.collection<StudentRow>('students').find(
    {
      $or: [
        { 'enrollments.enrolledAt': window },
        { 'enrollments.completedAt': window },
        { 'enrollments.lastActivityAt': window },
      ],
    },
    { projection: { enrollments: 1 } },
  );
  for await (const s of students) {
    let active = false;
    for (const e of s.enrollments ?? []) {
      if (inRange(e.enrolledAt, from, to)) {
        learning.enrollments_count += 1;
        course(String(e.courseId)).enrollments_count += 1;
        const day = days.get(dayOf(e.enrolledAt!));
        if (day) day.enrollments_count += 1;
        active = true;
      }
      if (inRange(e.completedAt, from, to)) {
        learning.completions_count += 1;
        active = true;
      }
      if (inRange(e.lastActivityAt, from, to)) active = true;
    }
    if (active) learning.active_students_count += 1;
  }

  const top = [...courses.entries()]
    .sort(([, a], [, b]) => b.revenue_cents - a.revenue_cents || b.enrollments_count - a.enrollments_count)
    .slice(0, 5);
  const untitled = top.filter(([, c]) => !c.title).map(([id]) => id);
  if (untitled.length) {
    const found = await db
      .collection('courses')
      .find({ _id: { $in: untitled.map((id) => new Types.ObjectId(id)) } }, { projection: { title: 1 } })
      .toArray();
    for (const f of found) courses.get(String(f._id))!.title = String(f.title);
  }

  return {
    from: from.toISOString(),
    to: to.toISOString(),
    currency,
    revenue,
    learning,
    daily: [...days.entries()].map(([date, d]) => ({ date, ...d })),
    top_courses: top.map(([course_id, c]) => ({ course_id, ...c, title: c.title || '(deleted course)' })),
  };
}

const area: AreaModule = {
  name: 'analytics',
  description: 'Revenue, enrollments and active students over a date range, computed from stored data.',
  operations: [
    {
      area: 'analytics',
      action: 'summary',
      method: 'get',
      path: '/api/v1/analytics',
      access: 'read',
      summary: 'Revenue and learning figures for a date range',
      description:
        'Default range: the last 30 days; at most 366 days. Days are UTC; money is in the school currency.',
      query,
      response: {
        status: 200,
        description: 'The figures',
        full: { name: 'AnalyticsSummary', schema: output },
      },
      errors: [400],
      async handle(ctx) {
        return { status: 200, body: await summary(ctx) };
      },
    },
  ],
};

export default area;
