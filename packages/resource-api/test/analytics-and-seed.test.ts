/**
 * Analytics computed from stored data, checked against a month of hand-made orders and enrollments
 * whose figures are known; and the seed's idempotency.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Types } from 'mongoose';
import { seedSchool } from '../src/seed/seed-school.js';
import { problemPaths, schoolForFile } from './helpers.js';

const s = schoolForFile();

const d = (iso: string) => new Date(iso);

describe('analytics', () => {
  const X = new Types.ObjectId();
  const Y = new Types.ObjectId();

  beforeAll(async () => {
    const db = s.api.running.connection;
    const order = (
      paidAt: string | null,
      total: number,
      course: Types.ObjectId,
      status = 'paid',
      currency = 'USD',
    ) => ({
      number: `AN-${new Types.ObjectId().toHexString()}`,
      studentId: new Types.ObjectId(),
      email: 'buyer@example.com',
      items: [
        {
          kind: 'course',
          productId: course,
          title: course === X ? 'Course X' : 'Course Y',
          unitPriceCents: total,
          quantity: 1,
        },
      ],
      subtotalCents: total,
      discountCents: 0,
      totalCents: total,
      currency,
      status,
      paidAt: paidAt ? d(paidAt) : null,
      createdAt: d(paidAt ?? '2031-01-09T00:00:00Z'),
      updatedAt: d('2031-01-09T00:00:00Z'),
    });
    await db
      .collection('orders')
      .insertMany([
        order('2031-01-05T09:00:00Z', 1000, X),
        order('2031-01-05T18:00:00Z', 1500, Y),
        order('2031-01-10T12:00:00Z', 1000, X),
        order('2031-01-12T12:00:00Z', 500, X, 'refunded'),
        order(null, 700, X, 'failed'),
        order('2031-01-07T12:00:00Z', 9999, X, 'paid', 'EUR'),
        order('2031-02-01T00:00:00Z', 1234, X),
        order('2030-12-31T23:59:59Z', 50, X),
      ]);
    const student = (email: string, createdAt: string, enrollments: Record<string, unknown>[]) => ({
      email,
      name: email,
      status: 'active',
      tags: [],
      enrollments,
      createdAt: d(createdAt),
      updatedAt: d(createdAt),
    });
    await db.collection('students').insertMany([
      student('an-a@example.com', '2031-01-03T08:00:00Z', [
        {
          courseId: X,
          enrolledAt: d('2031-01-03T08:00:00Z'),
          progressPercent: 100,
          completedAt: d('2031-01-20T08:00:00Z'),
        },
        {
          courseId: Y,
          enrolledAt: d('2030-06-01T08:00:00Z'),
          progressPercent: 10,
          lastActivityAt: d('2030-07-01T08:00:00Z'),
        },
      ]),
      student('an-b@example.com', '2030-01-01T08:00:00Z', [
        {
          courseId: Y,
          enrolledAt: d('2030-05-01T08:00:00Z'),
          progressPercent: 50,
          lastActivityAt: d('2031-01-15T08:00:00Z'),
        },
      ]),
      student('an-c@example.com', '2031-01-25T08:00:00Z', []),
      student('an-d@example.com', '2030-01-01T08:00:00Z', [
        { courseId: X, enrolledAt: d('2031-02-01T00:00:00Z'), progressPercent: 0 },
      ]),
    ]);
  });

  it('computes revenue, learning figures, a daily series and top courses for a range', async () => {
    const res = await s.as('analytics:read', '/api/v1/analytics?from=2031-01-01&to=2031-02-01');
    expect(res.status).toBe(200);
    const body = res.body as {
      revenue: unknown;
      learning: unknown;
      daily: { date: string; gross_cents: number; orders_count: number; enrollments_count: number }[];
      top_courses: unknown[];
      from: string;
      to: string;
      currency: string;
    };
    expect(body).toMatchObject({
      from: '2031-01-01T00:00:00.000Z',
      to: '2031-02-01T00:00:00.000Z',
      currency: 'USD',
    });
    expect(body.revenue).toEqual({
      gross_cents: 4000,
      refunded_cents: 500,
      net_cents: 3500,
      orders_count: 4,
      refunds_count: 1,
      average_order_value_cents: 1000,
    });
    expect(body.learning).toEqual({
      enrollments_count: 1,
      completions_count: 1,
      new_students_count: 2,
      active_students_count: 2,
    });
    expect(body.daily).toHaveLength(31);
    expect(body.daily.find((x) => x.date === '2031-01-05')).toEqual({
      date: '2031-01-05',
      gross_cents: 2500,
      orders_count: 2,
      enrollments_count: 0,
    });
    expect(body.daily.find((x) => x.date === '2031-01-03')!.enrollments_count).toBe(1);
    expect(body.top_courses).toEqual([
      { course_id: X.toHexString(), title: 'Course X', revenue_cents: 2500, enrollments_count: 1 },
      { course_id: Y.toHexString(), title: 'Course Y', revenue_cents: 1500, enrollments_count: 0 },
    ]);
  });

  it('defaults to the last 30 days, which the seeded school fills', async () => {
    const body = (await s.as('analytics:read', '/api/v1/analytics')).body as {
      from: string;
      to: string;
      revenue: { gross_cents: number };
    };
    expect(Date.parse(body.to) - Date.parse(body.from)).toBe(30 * 86_400_000);
    expect(body.revenue.gross_cents).toBeGreaterThan(0);
  });

  it('refuses an empty, reversed or too long range', async () => {
    expect(
      problemPaths(await s.as('analytics:read', '/api/v1/analytics?from=2031-01-02&to=2031-01-01')),
    ).toEqual(['query.from']);
    expect(
      problemPaths(await s.as('analytics:read', '/api/v1/analytics?from=2029-01-01&to=2031-01-01')),
    ).toEqual(['query.from']);
    expect(problemPaths(await s.as('analytics:read', '/api/v1/analytics?from=soon'))).toEqual(['query.from']);
  });
});

describe('the seed', () => {
  it('fills every area, and a second run adds nothing', async () => {
    const db = s.api.running.connection;
    const collections = [
      'courses',
      'curriculum_sections',
      'students',
      'members',
      'orders',
      'coupons',
      'membership_plans',
      'subscriptions',
      'events',
      'posts',
      'comments',
      'digital_products',
      'lecturers',
      'forms',
      'form_submissions',
      'pages',
      'school',
      'appearance',
      'storage.files',
    ];
    const counts = async (): Promise<Record<string, number>> =>
      Object.fromEntries(
        await Promise.all(
          collections.map(async (c) => [c, await db.collection(c).countDocuments()] as const),
        ),
      );
    const before = await counts();
    for (const c of collections) expect(before[c]).toBeGreaterThan(0);
    const report = await seedSchool(db);
    expect(Object.values(report).every((r) => r.inserted === 0)).toBe(true);
    expect(await counts()).toEqual(before);
  });
});
