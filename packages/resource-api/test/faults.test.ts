/**
 * Faults at the API, with a real MongoDB-protocol server of its own that the tests stop and
 * start (test-support/private-servers.ts): reads and writes answer 503 `temporarily_unavailable` during the
 * outage and work again without a restart once it is back; an interrupted upload leaves no file and
 * its chunks are swept; multi-document deletes run in the order that leaves only valid states (seen
 * in the commands the API sends) and a retry finishes one that was cut short.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import mongoose, { Types } from 'mongoose';
import { sweepOrphanChunks } from '../src/areas/storage.area.js';
import { seedSchool } from '../src/seed/seed-school.js';
import { authServerForFile } from '../../../test-support/auth-server.js';
import { privateMongo, type ServerProcess } from '../../../test-support/private-servers.js';
import { rawRequest } from '../../../test-support/raw-http.js';
import { call, startTestResourceApi, type TestResourceApi } from '../../../test-support/resource-api.js';
import { TokenSource } from '../../../test-support/tokens.js';

let mongo: ServerProcess;
let api: TestResourceApi;
let tokens: TokenSource;

afterAll(async () => {
  await api?.stop();
  await mongo?.stop();
}); // runs before the hook below stops the auth server
const auth = authServerForFile();
beforeAll(async () => {
  mongo = await privateMongo();
  api = await startTestResourceApi(auth, { MONGODB_URI: mongo.url });
  await seedSchool(api.running.connection);
  tokens = new TokenSource(auth);
}, 60_000);

const SCOPES = ['students:read', 'courses:read', 'courses:write', 'curriculum:write', 'posts:write'];
const SCOPES_STORAGE = ['storage:write', 'digital_products:write', 'digital_products:read'];
const as = async (scopes: string[], path: string, init: Parameters<typeof call>[2] = {}) =>
  call(api.url, path, { ...init, token: await tokens.token(scopes, { resource: auth.issuer }) });
const db = () => api.running.connection;

async function until(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('condition not met in time');
}

/** Open connections to the API (idle keep-alive ones closed first). */
const connections = () =>
  new Promise<number>((resolve, reject) =>
    api.running.server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
  );

/** Chunks that no files document names. */
async function orphanChunkIds(): Promise<string[]> {
  const ids = (await db().collection('storage.chunks').distinct('files_id')) as Types.ObjectId[];
  const files = await db()
    .collection('storage.files')
    .find({ _id: { $in: ids } })
    .toArray();
  const known = new Set(files.map((f) => String(f._id)));
  return ids.map(String).filter((id) => !known.has(id));
}

describe('MongoDB stopped', () => {
  it('answers reads and writes 503 temporarily_unavailable during the outage, and recovers without a restart', async () => {
    expect((await as(SCOPES, '/api/v1/students?limit=1')).status).toBe(200); // token cached

    await mongo.stop();
    try {
      const started = Date.now();
      const answers = await Promise.all([
        as(SCOPES, '/api/v1/students?limit=1'),
        call(api.url, '/api/v1/courses?limit=1'),
        as(SCOPES, '/api/v1/courses', { method: 'POST', json: { title: 'During the outage' } }),
        as(SCOPES, '/api/v1/courses/0123456789abcdef01234567', { method: 'PATCH', json: { title: 'x' } }),
      ]);
      for (const res of answers) {
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
        expect(res.headers.get('retry-after')).toBe('5');
      }
      expect(Date.now() - started).toBeLessThan(15_000);
      const ready = await call(api.url, '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ checks: { mongodb: 'down' } });
    } finally {
      await mongo.start();
    }

    await until(async () => (await call(api.url, '/readyz')).status === 200);
    expect((await as(SCOPES, '/api/v1/students?limit=1')).status).toBe(200);
    const created = await as(SCOPES, '/api/v1/courses', {
      method: 'POST',
      json: { title: 'After the outage' },
    });
    expect(created.status).toBe(201);
    expect(await db().collection('courses').countDocuments({ title: 'During the outage' })).toBe(0);
  }, 90_000);

  it('leaves no file when MongoDB goes away in the middle of an upload, and sweeps the chunks it wrote', async () => {
    const token = await tokens.token(SCOPES_STORAGE, { resource: auth.issuer });
    const filesBefore = await db().collection('storage.files').countDocuments();
    const size = 2 * 1024 * 1024;
    const head = `POST /api/v1/storage?filename=cut.bin HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\ncontent-type: application/octet-stream\r\ncontent-length: ${size}\r\n\r\n`;
    const answer = rawRequest(api.url, [head, Buffer.alloc(600 * 1024, 7)], {
      keepOpen: true,
      timeoutMs: 30_000,
    });
    await until(async () => (await db().collection('storage.chunks').countDocuments()) > 0, 10_000);
    await mongo.stop('SIGKILL');
    try {
      const res = await answer;
      expect(res.status).toBe(503);
      // Nor is the connection left half-read until the keep-alive timeout.
      await until(async () => {
        api.running.server.closeIdleConnections();
        return (await connections()) === 0;
      }, 5000);
    } finally {
      await mongo.start();
    }
    await until(async () => (await call(api.url, '/readyz')).status === 200);
    expect(await db().collection('storage.files').countDocuments()).toBe(filesBefore);
    await sweepOrphanChunks(db(), new Date(Date.now() + 60_000));
    expect(await orphanChunkIds()).toEqual([]);
  }, 90_000);
});

describe('interrupted uploads', () => {
  it('removes the chunks of an upload its client abandons half way', async () => {
    const token = await tokens.token(SCOPES_STORAGE, { resource: auth.issuer });
    const before = await orphanChunkIds();
    const head = `POST /api/v1/storage?filename=abandoned.bin HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\ncontent-length: ${4 * 1024 * 1024}\r\n\r\n`;
    const abandoned = rawRequest(api.url, [head, Buffer.alloc(700 * 1024, 1)], {
      keepOpen: true,
      timeoutMs: 1500,
    });
    await until(async () => (await orphanChunkIds()).length > before.length, 10_000);
    await abandoned.catch(() => undefined); // the client gives up and closes the connection
    await until(async () => (await orphanChunkIds()).length === before.length, 10_000);
  });

  it('writes the files document once, complete with its SHA-256, and sweeps only chunks older than any upload', async () => {
    const res = await as(SCOPES_STORAGE, '/api/v1/storage?filename=hash.txt', {
      method: 'POST',
      body: 'crumb',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(201);
    const { id, sha256 } = res.body as { id: string; sha256: string };
    const stored = await db()
      .collection('storage.files')
      .findOne({ _id: new Types.ObjectId(id) });
    expect(stored?.metadata).toMatchObject({ contentType: 'text/plain', sha256 });

    const chunks = db().collection('storage.chunks');
    const old = Types.ObjectId.createFromTime(Math.floor(Date.now() / 1000) - 3 * 3600);
    const recent = new Types.ObjectId();
    await chunks.insertMany([
      { files_id: old, n: 0, data: Buffer.from('left by a crash') },
      { files_id: recent, n: 0, data: Buffer.from('an upload in progress') },
    ]);
    const restarted = await startTestResourceApi(auth, { MONGODB_URI: mongo.url }); // start-up sweeps
    await restarted.stop();
    expect(await chunks.countDocuments({ files_id: old })).toBe(0);
    expect(await chunks.countDocuments({ files_id: recent })).toBe(1);
    expect(await chunks.countDocuments({ files_id: new Types.ObjectId(id) })).toBe(1);
    await chunks.deleteMany({ files_id: recent });
  });
});

describe('multi-document deletes', () => {
  /** The write commands the API sends while `run` runs, as `collection.method`. */
  async function writesDuring(run: () => Promise<unknown>): Promise<string[]> {
    const seen: string[] = [];
    mongoose.set('debug', (collection: string, method: string) => {
      if (/^(delete|update|insert)/.test(method)) seen.push(`${collection}.${method}`);
    });
    try {
      await run();
    } finally {
      mongoose.set('debug', false);
    }
    return seen;
  }

  it('deletes a course’s sections before the course, sweeps again after, and a retry clears what a cut-short delete left', async () => {
    const course = await as(SCOPES, '/api/v1/courses', { method: 'POST', json: { title: 'Short-lived' } });
    const courseId = (course.body as { id: string }).id;
    for (const title of ['One', 'Two'])
      await as(SCOPES, '/api/v1/curriculum', { method: 'POST', json: { course_id: courseId, title } });
    const sections = db().collection('curriculum_sections');
    expect(await sections.countDocuments({ courseId: new Types.ObjectId(courseId) })).toBe(2);

    const writes = await writesDuring(async () => {
      expect((await as(SCOPES, `/api/v1/courses/${courseId}`, { method: 'DELETE' })).status).toBe(204);
    });
    expect(writes).toEqual([
      'curriculum_sections.deleteMany',
      'courses.deleteOne',
      'curriculum_sections.deleteMany',
    ]);

    // What a crash between the old order's steps left: sections of a course that is gone.
    await sections.insertOne({
      courseId: new Types.ObjectId(courseId),
      title: 'Orphan',
      position: 0,
      lessons: [],
    });
    expect((await as(SCOPES, `/api/v1/courses/${courseId}`, { method: 'DELETE' })).status).toBe(404);
    expect(await sections.countDocuments({ courseId: new Types.ObjectId(courseId) })).toBe(0);
  });

  it('deletes a post’s comments before the post', async () => {
    const post = await as(SCOPES, '/api/v1/posts', {
      method: 'POST',
      json: { title: 'Brief', body: 'Soon gone.' },
    });
    const postId = (post.body as { id: string }).id;
    await db()
      .collection('comments')
      .insertOne({ postId: new Types.ObjectId(postId), authorName: 'A', body: 'Hi', status: 'approved' });
    const writes = await writesDuring(async () => {
      expect((await as(SCOPES, `/api/v1/posts/${postId}`, { method: 'DELETE' })).status).toBe(204);
    });
    expect(writes).toEqual(['comments.deleteMany', 'posts.deleteOne', 'comments.deleteMany']);
    expect(
      await db()
        .collection('comments')
        .countDocuments({ postId: new Types.ObjectId(postId) }),
    ).toBe(0);
  });

  it('removes a file from products first, then the file, then its content; a retry clears chunks a cut-short delete left', async () => {
    const upload = await as(SCOPES_STORAGE, '/api/v1/storage?filename=f.txt', { method: 'POST', body: 'f' });
    const fileId = (upload.body as { id: string }).id;
    const product = await as(SCOPES_STORAGE, '/api/v1/digital_products', {
      method: 'POST',
      json: { title: 'Bundle', file_ids: [fileId] },
    });
    const writes = await writesDuring(async () => {
      expect((await as(SCOPES_STORAGE, `/api/v1/storage/${fileId}`, { method: 'DELETE' })).status).toBe(204);
    });
    expect(writes).toEqual([
      'digital_products.updateMany',
      'storage.files.deleteOne',
      'storage.chunks.deleteMany',
    ]);
    const after = await as(SCOPES_STORAGE, `/api/v1/digital_products/${(product.body as { id: string }).id}`);
    expect((after.body as { file_ids: string[] }).file_ids).toEqual([]);

    // A crash after the files document went and before the chunks: the retry answers 404 and cleans up.
    await db()
      .collection('storage.chunks')
      .insertOne({ files_id: new Types.ObjectId(fileId), n: 0, data: Buffer.from('f') });
    expect((await as(SCOPES_STORAGE, `/api/v1/storage/${fileId}`, { method: 'DELETE' })).status).toBe(404);
    expect(
      await db()
        .collection('storage.chunks')
        .countDocuments({ files_id: new Types.ObjectId(fileId) }),
    ).toBe(0);
  });
});
