/**
 * Reading: the anonymous public views (published items only, reduced fields, drafts are 404),
 * cursor pagination walking whole lists without gaps or repeats (also across equal sort values), the
 * limit bounds, and the filters and search a school admin expects.
 */
import { describe, expect, it } from '@jest/globals';
import { Types } from 'mongoose';
import { items, problemPaths, schoolForFile } from './helpers.js';

const s = schoolForFile();

describe('anonymous public views', () => {
  it('lists only published courses, without status or timestamps', async () => {
    const all = items(await s.as('courses:read', '/api/v1/courses?limit=100'));
    const pub = items(await s.anon('/api/v1/courses?limit=100'));
    expect(pub.map((c) => c.id).sort()).toEqual(
      all
        .filter((c) => c.status === 'published')
        .map((c) => c.id)
        .sort(),
    );
    expect(pub.length).toBeLessThan(all.length);
    for (const c of pub) {
      expect(c).not.toHaveProperty('status');
      expect(c).not.toHaveProperty('created_at');
    }
  });

  it('answers 404 for a draft course anonymously, 200 with a token', async () => {
    const draft = items<{ id: string }>(await s.as('courses:read', '/api/v1/courses?status=draft'))[0]!;
    expect((await s.anon(`/api/v1/courses/${draft.id}`)).status).toBe(404);
    expect((await s.as('courses:read', `/api/v1/courses/${draft.id}`)).status).toBe(200);
  });

  it('shows visible lecturers without their email', async () => {
    const pub = items(await s.anon('/api/v1/lecturers'));
    const all = items(await s.as('lecturers:read', '/api/v1/lecturers'));
    expect(pub.length).toBe(all.filter((l) => l.visible).length);
    for (const l of pub) expect(l).not.toHaveProperty('email');
  });

  it('shows the school profile and appearance without internal fields', async () => {
    const school = (await s.anon('/api/v1/school')).body as Record<string, unknown>;
    expect(school.name).toBe('Crumb & Crust Baking School');
    expect(school).not.toHaveProperty('timezone');
    const look = (await s.anon('/api/v1/appearance')).body as Record<string, unknown>;
    expect(look.primary_color).toBe('#b5651d');
    expect(look).not.toHaveProperty('custom_css');
  });

  it.each([
    ['events', 'status'],
    ['posts', 'status'],
    ['pages', 'status'],
    ['membership_plans', 'status'],
    ['digital_products', 'file_ids'],
  ])('serves published %s only, without %s', async (area, hidden) => {
    const pub = items(await s.anon(`/api/v1/${area}?limit=100`));
    const all = items(await s.as(`${area}:read`, `/api/v1/${area}?limit=100`));
    const published = all.filter((x) => x.status === 'published');
    expect(pub.map((x) => x.id).sort()).toEqual(published.map((x) => x.id).sort());
    expect(published.length).toBeLessThan(all.length);
    for (const x of pub) expect(x).not.toHaveProperty(hidden);
  });

  it('refuses private areas to anonymous callers', async () => {
    for (const path of [
      '/api/v1/students',
      '/api/v1/orders',
      '/api/v1/analytics',
      '/api/v1/account',
      '/api/v1/forms',
    ]) {
      const res = await s.anon(path);
      expect(res.status).toBe(403);
      expect(res.headers.get('link')).toMatch(/oauth-protected-resource/);
    }
  });
});

describe('pagination', () => {
  it('walks a full list without gaps or repeats, also across equal timestamps', async () => {
    const same = new Date('2020-02-02T02:02:02Z');
    await s.api.running.connection.collection('students').insertMany(
      Array.from({ length: 45 }, (_, i) => ({
        _id: new Types.ObjectId(),
        email: `page-walk-${i}@example.com`,
        name: `Walker ${i}`,
        status: 'active',
        tags: [],
        enrollments: [],
        createdAt: same,
        updatedAt: same,
      })),
    );
    const everything = items<{ id: string }>(await s.as('students:read', '/api/v1/students?limit=100')).map(
      (x) => x.id,
    );
    const walked: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await s.as('students:read', `/api/v1/students?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      const page = items<{ id: string }>(res);
      expect(page.length).toBeLessThanOrEqual(7);
      walked.push(...page.map((x) => x.id));
      cursor = (res.body as { next_cursor: string | null }).next_cursor;
      pages++;
    } while (cursor && pages < 50);
    expect(new Set(walked).size).toBe(walked.length);
    expect(walked.length).toBe(105); // 60 seeded + 45
    expect(walked.slice(0, 100)).toEqual(everything);
  });

  it('walks a filtered search the same way', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await s.as(
        'students:read',
        `/api/v1/students?q=PAGE-WALK&limit=10${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...items<{ email: string }>(res).map((x) => x.email));
      cursor = (res.body as { next_cursor: string | null }).next_cursor;
    } while (cursor);
    expect(seen.length).toBe(45);
    expect(new Set(seen).size).toBe(45);
  });

  it('orders events by start time, soonest first, page by page', async () => {
    const starts: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await s.as('events:read', `/api/v1/events?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      starts.push(...items<{ starts_at: string }>(res).map((e) => e.starts_at));
      cursor = (res.body as { next_cursor: string | null }).next_cursor;
    } while (cursor);
    expect(starts.length).toBe(6);
    expect([...starts].sort()).toEqual(starts);
  });

  it('defaults to 20 items and bounds limit to 1-100', async () => {
    expect(items(await s.as('students:read', '/api/v1/students')).length).toBe(20);
    expect(items(await s.as('students:read', '/api/v1/students?limit=100')).length).toBe(100);
    for (const bad of ['0', '101', 'ten', '2.5']) {
      const res = await s.as('students:read', `/api/v1/students?limit=${bad}`);
      expect(res.status).toBe(400);
      expect(problemPaths(res)).toEqual(['query.limit']);
    }
  });

  it('answers 400 to a cursor that is not one', async () => {
    for (const bad of [
      'garbage',
      Buffer.from('[1,2]').toString('base64url'),
      Buffer.from('["x","zz"]').toString('base64url'),
    ]) {
      const res = await s.as('students:read', `/api/v1/students?cursor=${bad}`);
      expect(res.status).toBe(400);
      expect(problemPaths(res)).toEqual(['query.cursor']);
    }
  });
});

describe('filters and search', () => {
  it('filters orders by status and by a date range', async () => {
    const refunded = items<{ status: string }>(
      await s.as('orders:read', '/api/v1/orders?status=refunded&limit=100'),
    );
    expect(refunded.length).toBeGreaterThan(0);
    expect(refunded.every((o) => o.status === 'refunded')).toBe(true);
    const from = new Date(Date.now() - 30 * 86_400_000).toISOString();
    const to = new Date(Date.now() - 10 * 86_400_000).toISOString();
    const ranged = items<{ created_at: string }>(
      await s.as('orders:read', `/api/v1/orders?created_from=${from}&created_to=${to}&limit=100`),
    );
    expect(ranged.length).toBeGreaterThan(0);
    for (const o of ranged) {
      expect(o.created_at >= from).toBe(true);
      expect(o.created_at < to).toBe(true);
    }
  });

  it('searches students by email or name, case-insensitively, and treats regex characters literally', async () => {
    const hits = items<{ email: string; name: string }>(
      await s.as('students:read', '/api/v1/students?q=NOAH'),
    );
    expect(hits.length).toBeGreaterThan(0);
    for (const h of hits) expect(`${h.email} ${h.name}`.toLowerCase()).toContain('noah');
    expect(items(await s.as('students:read', '/api/v1/students?q=.*')).length).toBe(0);
  });

  it('filters students by course and coupons by active flag', async () => {
    const course = items<{ id: string }>(await s.as('courses:read', '/api/v1/courses?status=published'))[0]!;
    const enrolled = items<{ enrollments: { course_id: string }[] }>(
      await s.as('students:read', `/api/v1/students?course_id=${course.id}&limit=100`),
    );
    expect(enrolled.length).toBeGreaterThan(0);
    for (const st of enrolled) expect(st.enrollments.map((e) => e.course_id)).toContain(course.id);
    const inactive = items<{ active: boolean; code: string }>(
      await s.as('coupons:read', '/api/v1/coupons?active=false'),
    );
    expect(inactive.map((c) => c.code)).toEqual(['BLACKFRIDAY']);
  });

  it('lists every problem of a bad query at once', async () => {
    const res = await s.as('orders:read', '/api/v1/orders?status=lost&created_from=yesterday&colour=blue');
    expect(res.status).toBe(400);
    expect(problemPaths(res).sort()).toEqual(['query', 'query.created_from', 'query.status']);
  });

  it('pages through a form’s submissions', async () => {
    const form = items<{ id: string; slug: string; submissions_count: number }>(
      await s.as('forms:read', '/api/v1/forms'),
    ).find((f) => f.slug === 'newsletter')!;
    const first = await s.as('forms:read', `/api/v1/forms/${form.id}/submissions?limit=20`);
    const cursor = (first.body as { next_cursor: string }).next_cursor;
    const second = await s.as('forms:read', `/api/v1/forms/${form.id}/submissions?limit=20&cursor=${cursor}`);
    const all = [...items<{ id: string }>(first), ...items<{ id: string }>(second)].map((x) => x.id);
    expect(new Set(all).size).toBe(form.submissions_count);
    expect((await s.as('forms:read', '/api/v1/forms/000000000000000000000000/submissions')).status).toBe(404);
  });
});
