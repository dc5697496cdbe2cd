/**
 * Writing: validation (400 listing every problem), ids (404 for unknown and malformed, never 500),
 * unique fields (409), body limits and media types (413, 415), methods (405), the storage area's
 * uploads into GridFS, and the account area (the caller's own account, name fields only).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import mongoose from 'mongoose';
import { z } from 'zod';
import { call } from '../../../test-support/resource-api.js';
import { ADMIN } from '../../../test-support/auth-server.js';
import { items, problemPaths, schoolForFile } from './helpers.js';

const s = schoolForFile({ UPLOAD_LIMIT: '64kb', BODY_LIMIT: '16kb' });

const post = (scope: string, path: string, json: unknown) => s.as(scope, path, { method: 'POST', json });
const patch = (scope: string, path: string, json: unknown) => s.as(scope, path, { method: 'PATCH', json });

describe('validation', () => {
  it('lists every problem of a body at once', async () => {
    const res = await post('courses:write', '/api/v1/courses', {
      title: '',
      price_cents: -1,
      currency: 'usd',
      lecturer_ids: ['nope'],
      colour: 'red',
    });
    expect(res.status).toBe(400);
    expect((res.body as { error: string }).error).toBe('invalid_request');
    expect(problemPaths(res).sort()).toEqual([
      'body',
      'body.currency',
      'body.lecturer_ids.0',
      'body.price_cents',
      'body.title',
    ]);
    for (const path of problemPaths(res))
      expect((res.body as { error_description: string }).error_description).toContain(path);
  });

  it('treats a request without a body as {} and lists the missing fields', async () => {
    const res = await s.as('events:write', '/api/v1/events', { method: 'POST' });
    expect(res.status).toBe(400);
    expect(problemPaths(res).sort()).toEqual(['body.ends_at', 'body.starts_at', 'body.title']);
  });

  it('answers 400 to a body that is not JSON', async () => {
    const res = await s.as('courses:write', '/api/v1/courses', {
      method: 'POST',
      body: '{"title": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(problemPaths(res)).toEqual(['body']);
  });

  it('checks fields against each other, also on update (event end after start, coupon kind)', async () => {
    const bad = await post('events:write', '/api/v1/events', {
      title: 'Backwards',
      starts_at: '2030-01-02T10:00:00Z',
      ends_at: '2030-01-02T09:00:00Z',
    });
    expect(problemPaths(bad)).toEqual(['body.ends_at']);
    const ok = await post('events:write', '/api/v1/events', {
      title: 'Forwards',
      starts_at: '2030-01-02T10:00:00Z',
      ends_at: '2030-01-02T11:00:00+01:00',
      timezone: 'Europe/Berlin',
    });
    expect(ok.status).toBe(400); // 11:00+01:00 is 10:00Z: not after the start
    const good = await post('events:write', '/api/v1/events', {
      title: 'Forwards',
      starts_at: '2030-01-02T10:00:00Z',
      ends_at: '2030-01-02T12:00:00Z',
    });
    expect(good.status).toBe(201);
    const id = (good.body as { id: string }).id;
    expect(
      problemPaths(await patch('events:write', `/api/v1/events/${id}`, { ends_at: '2030-01-01T00:00:00Z' })),
    ).toEqual(['body.ends_at']);
    const coupon = await post('coupons:write', '/api/v1/coupons', {
      code: 'HALF',
      discount_type: 'amount',
      percent_off: 50,
    });
    expect(problemPaths(coupon).sort()).toEqual([
      'body.amount_off_cents',
      'body.currency',
      'body.percent_off',
    ]);
  });

  it('documents in CouponCreate which amount fields each discount type takes, as the API checks them', async () => {
    const doc = (await s.anon('/openapi.json')).body as {
      components: { schemas: Record<string, z.core.JSONSchema.JSONSchema> };
    };
    const documented = z.fromJSONSchema(doc.components.schemas.CouponCreate!);
    const bodies: [Record<string, unknown>, boolean][] = [
      [{ discount_type: 'percent' }, false],
      [{ discount_type: 'percent', percent_off: 10, amount_off_cents: 100 }, false],
      [{ discount_type: 'percent', percent_off: 10, currency: 'EUR' }, true],
      [{ discount_type: 'amount', amount_off_cents: 500 }, false],
      [{ discount_type: 'amount', amount_off_cents: 500, currency: 'EUR', percent_off: 5 }, false],
      [{ discount_type: 'amount', amount_off_cents: 500, currency: 'EUR', percent_off: null }, true],
    ];
    for (const [i, [fields, valid]] of bodies.entries()) {
      const body = { code: `KIND${i}`, ...fields };
      const res = await post('coupons:write', '/api/v1/coupons', body);
      const verdicts = [JSON.stringify(body), res.status, documented.safeParse(body).success];
      expect(verdicts).toEqual([JSON.stringify(body), valid ? 201 : 400, valid]);
    }
  });

  it('refuses references to things that do not exist', async () => {
    const res = await post('curriculum:write', '/api/v1/curriculum', {
      course_id: '0123456789abcdef01234567',
      title: 'Orphan',
    });
    expect(res.status).toBe(400);
    expect(problemPaths(res)).toEqual(['body.course_id']);
  });

  it('keeps what a PATCH does not name, and clears what it sets to null', async () => {
    const created = await post('courses:write', '/api/v1/courses', {
      title: 'Patch Me',
      subtitle: 'temporary',
      price_cents: 1000,
    });
    const id = (created.body as { id: string }).id;
    const res = await patch('courses:write', `/api/v1/courses/${id}`, { subtitle: null, level: 'advanced' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      title: 'Patch Me',
      subtitle: null,
      level: 'advanced',
      price_cents: 1000,
    });
  });
});

describe('ids, methods and paths', () => {
  it.each([['not-an-id'], ['123'], ['0123456789ABCDEF01234567'], ['0123456789abcdef0123456']])(
    'answers 404 (not 400 or 500) to the malformed id %s',
    async (id) => {
      expect((await s.as('courses:read', `/api/v1/courses/${id}`)).status).toBe(404);
      expect((await patch('courses:write', `/api/v1/courses/${id}`, { title: 'x' })).status).toBe(404);
      expect((await s.as('courses:write', `/api/v1/courses/${id}`, { method: 'DELETE' })).status).toBe(404);
      expect((await s.as('storage:write', `/api/v1/storage/${id}`, { method: 'DELETE' })).status).toBe(404);
    },
  );

  it('answers 404 to an unknown id and to an unknown path', async () => {
    const unknown = await s.as('orders:read', '/api/v1/orders/0123456789abcdef01234567');
    expect(unknown.status).toBe(404);
    expect((unknown.body as { error: string }).error).toBe('not_found');
    expect((await s.anon('/api/v1/nothing-here')).status).toBe(404);
  });

  it('answers 405 with Allow to a method the path does not have', async () => {
    const res = await s.as('courses:write', '/api/v1/courses', { method: 'PUT', json: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST, HEAD');
    expect((await s.as('orders:read', '/api/v1/orders', { method: 'POST', json: {} })).status).toBe(405);
  });
});

describe('unique fields', () => {
  it('answers 409 to a duplicate slug on create and on update', async () => {
    const dup = await post('courses:write', '/api/v1/courses', { title: 'Again', slug: 'sourdough-basics' });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({
      error: 'conflict',
      error_description: 'a course with this slug already exists',
    });
    const other = await post('courses:write', '/api/v1/courses', { title: 'Unique One' });
    const id = (other.body as { id: string }).id;
    expect((await patch('courses:write', `/api/v1/courses/${id}`, { slug: 'sourdough-basics' })).status).toBe(
      409,
    );
  });

  it('answers 409 to an email that differs only in case', async () => {
    const first = await post('students:write', '/api/v1/students', {
      email: 'Case.Test@Example.com',
      name: 'Case',
    });
    expect(first.status).toBe(201);
    expect((first.body as { email: string }).email).toBe('case.test@example.com');
    expect(
      (await post('students:write', '/api/v1/students', { email: 'CASE.TEST@example.com', name: 'Case' }))
        .status,
    ).toBe(409);
  });
});

describe('bodies', () => {
  it('answers 413 to a JSON body over BODY_LIMIT', async () => {
    const res = await post('pages:write', '/api/v1/pages', { title: 'Big', body: 'x'.repeat(20 * 1024) });
    expect(res.status).toBe(413);
    expect((res.body as { error: string }).error).toBe('request_too_large');
  });

  it('answers 415 to a body that is not JSON', async () => {
    const res = await s.as('pages:write', '/api/v1/pages', {
      method: 'POST',
      body: 'title=Hi',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect((res.body as { error: string }).error).toBe('unsupported_media_type');
  });

  it('checks authorization before reading the body', async () => {
    const res = await s.anon('/api/v1/pages', {
      method: 'POST',
      body: 'x'.repeat(20 * 1024),
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(403);
  });
});

describe('storage', () => {
  const bucket = () =>
    new mongoose.mongo.GridFSBucket(s.api.running.connection.db!, { bucketName: 'storage' });

  async function upload(content: string | Buffer, filename = 'notes.txt', contentType = 'text/plain') {
    return s.as('storage:write', `/api/v1/storage?filename=${encodeURIComponent(filename)}`, {
      method: 'POST',
      body: content,
      headers: { 'content-type': contentType },
    });
  }

  it('stores the raw body in GridFS, and a delete removes it from products too', async () => {
    const content = 'Fold every 30 minutes.\n'.repeat(100);
    const res = await upload(content, 'folding schedule.txt');
    expect(res.status).toBe(201);
    const file = res.body as {
      id: string;
      size: number;
      sha256: string;
      filename: string;
      content_type: string;
    };
    expect(file).toMatchObject({
      filename: 'folding schedule.txt',
      content_type: 'text/plain',
      size: content.length,
    });
    expect(file.sha256).toBe(createHash('sha256').update(content).digest('hex'));
    const chunks: Buffer[] = [];
    for await (const c of bucket().openDownloadStream(new mongoose.Types.ObjectId(file.id)))
      chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe(content);

    const product = await post('digital_products:write', '/api/v1/digital_products', {
      title: 'Schedule',
      file_ids: [file.id],
    });
    expect(product.status).toBe(201);
    const productId = (product.body as { id: string }).id;

    expect((await s.as('storage:write', `/api/v1/storage/${file.id}`, { method: 'DELETE' })).status).toBe(
      204,
    );
    expect(
      await bucket()
        .find({ _id: new mongoose.Types.ObjectId(file.id) })
        .toArray(),
    ).toEqual([]);
    const after = await s.as('digital_products:read', `/api/v1/digital_products/${productId}`);
    expect((after.body as { file_ids: string[] }).file_ids).toEqual([]);
    expect((await s.as('storage:write', `/api/v1/storage/${file.id}`, { method: 'DELETE' })).status).toBe(
      404,
    );
  });

  it('refuses a product that names a file that does not exist', async () => {
    const res = await post('digital_products:write', '/api/v1/digital_products', {
      title: 'Ghost',
      file_ids: ['0123456789abcdef01234567'],
    });
    expect(problemPaths(res)).toEqual(['body.file_ids']);
  });

  it('answers 413 over UPLOAD_LIMIT, declared or streamed, and keeps no partial file', async () => {
    const before = await bucket().find({}).toArray();
    expect((await upload(Buffer.alloc(65 * 1024, 1), 'big.bin', 'application/octet-stream')).status).toBe(
      413,
    );
    const token = await s.tokens.token(['storage:write'], { resource: s.auth.issuer });
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new Uint8Array(8 * 1024));
        controller.close();
      },
    });
    const res = await fetch(`${s.api.url}/api/v1/storage?filename=stream.bin`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body: stream,
      duplex: 'half',
    });
    expect(res.status).toBe(413);
    expect((await bucket().find({}).toArray()).length).toBe(before.length);
  });

  it('answers 415 to multipart, and 400 without a filename or with an empty body', async () => {
    expect((await upload('--x--', 'a.txt', 'multipart/form-data; boundary=x')).status).toBe(415);
    const noName = await s.as('storage:write', '/api/v1/storage', { method: 'POST', body: 'hi' });
    expect(problemPaths(noName)).toEqual(['query.filename']);
    expect(problemPaths(await upload('', 'empty.txt'))).toEqual(['body']);
    expect(problemPaths(await upload('x', '../etc/passwd'))).toEqual(['query.filename']);
  });
});

describe('account', () => {
  it('is the caller’s own account, without the password hash', async () => {
    const res = await s.as('account:read', '/api/v1/account');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      email: ADMIN.email,
      name: ADMIN.name,
      role: 'admin',
      email_verified: true,
    });
    expect(res.text).not.toMatch(/password/i);
    const sub = (await s.auth.running.accounts.authenticate(ADMIN.email, ADMIN.password))!;
    expect((res.body as { id: string }).id).toBe(sub);
  });

  it('changes name fields only, and leaves the password hash alone', async () => {
    const accounts = s.api.running.connection.collection('accounts');
    const hash = (await accounts.findOne({ email: ADMIN.email }))!.passwordHash as string;
    const res = await patch('account:write', '/api/v1/account', {
      given_name: 'Ada',
      family_name: 'Lovelace',
    });
    expect(res.body).toMatchObject({ given_name: 'Ada', family_name: 'Lovelace', email: ADMIN.email });
    expect(
      problemPaths(
        await patch('account:write', '/api/v1/account', { email: 'evil@example.com', role: 'admin' }),
      ),
    ).toEqual(['body']);
    const after = (await accounts.findOne({ email: ADMIN.email }))!;
    expect(after.passwordHash).toBe(hash);
    expect(after.givenName).toBe('Ada');
    // The auth server still signs the admin in.
    expect(await s.auth.running.accounts.authenticate(ADMIN.email, ADMIN.password)).toBe(after._id);
  });
});

describe('account names: the display rule of every name a person reads', () => {
  it.each([
    ['a right-to-left override', { name: 'Ada \u202Enimda' }, 'body.name', 'U+202E'],
    ['a zero-width space', { given_name: 'Ad\u200Ba' }, 'body.given_name', 'U+200B'],
    ['a bidirectional isolate', { family_name: '\u2067Lovelace' }, 'body.family_name', 'U+2067'],
    ['a control character', { name: 'Ada\u0007' }, 'body.name', 'U+0007'],
  ])('refuses %s with 400 in the API’s error shape, and stores nothing', async (_what, body, path, found) => {
    const accounts = s.api.running.connection.collection('accounts');
    const before = await accounts.findOne({ email: ADMIN.email });
    const res = await patch('account:write', '/api/v1/account', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining(path),
      problems: [{ path, message: expect.stringContaining(found) }],
    });
    const after = await accounts.findOne({ email: ADMIN.email });
    expect([after!.name, after!.givenName, after!.familyName]).toEqual([
      before!.name,
      before!.givenName,
      before!.familyName,
    ]);
  });

  it('takes a name in any script, with its combining marks', async () => {
    const res = await patch('account:write', '/api/v1/account', {
      given_name: 'Nguyễn',
      family_name: 'أحمد',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ given_name: 'Nguyễn', family_name: 'أحمد' });
  });
});

describe('health', () => {
  it('answers /healthz and /readyz on the API port', async () => {
    expect((await call(s.api.url, '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await call(s.api.url, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'ok',
      checks: { mongodb: 'ok', redis: 'ok', introspection: 'ok' },
    });
  });

  it('lists what it found in the school', async () => {
    expect(items(await s.as('members:read', '/api/v1/members?limit=100')).length).toBe(25);
  });
});
