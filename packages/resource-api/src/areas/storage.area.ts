/**
 * Storage: file uploads into MongoDB GridFS (bucket `storage`), write-only as its one scope
 * (`storage:write`) says: upload and delete, no listing or download through the API. Uploaded files
 * are referenced by id elsewhere (a digital product's `file_ids`).
 *
 * Upload format: the **raw request body is the file** (not multipart): `POST /api/v1/storage?filename=
 * guide.pdf` with `Content-Type` the file's media type. It streams straight into GridFS while its size
 * and SHA-256 are computed, so memory stays flat; over `UPLOAD_LIMIT` it is aborted (the chunks
 * written so far are removed) and answered 413. Multipart bodies are refused with 415.
 */
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import mongoose, { type Connection, type Types } from 'mongoose';
import { z } from 'zod';
import {
  InvalidRequestError,
  NotFoundError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
} from '../lib/errors.js';
import { pathId } from '../lib/ids.js';
import type { AreaModule } from '../lib/operation.js';
import { idOf, instant } from '../lib/wire.js';

const BUCKET = 'storage';

const bucket = (connection: Connection) =>
  new mongoose.mongo.GridFSBucket(connection.db!, { bucketName: BUCKET });

const output = z.strictObject({
  id: z.string().describe('Use it in file_ids of a digital product'),
  filename: z.string(),
  content_type: z.string(),
  size: z.number().int().describe('Bytes'),
  sha256: z.string().describe('Hex SHA-256 of the content'),
  created_at: instant,
});

const isControl = (c: string) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127;
const filename = z
  .string()
  .min(1)
  .max(255)
  .refine(
    (s) => !/[/\\]/.test(s) && ![...s].some(isControl),
    'must be a plain file name (no slashes or control characters)',
  );

/** Counts and hashes what passes through; fails once more than `max` bytes went by. */
class Meter extends Transform {
  bytes = 0;
  private readonly hash = createHash('sha256');
  constructor(private readonly max: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
    this.bytes += chunk.length;
    if (this.bytes > this.max) return done(new PayloadTooLargeError(this.max));
    this.hash.update(chunk);
    done(null, chunk);
  }
  digest(): string {
    return this.hash.digest('hex');
  }
}

const area: AreaModule = {
  name: 'storage',
  description: 'File uploads (GridFS): upload a file as the raw request body, delete it by id.',
  operations: [
    {
      area: 'storage',
      action: 'upload',
      method: 'post',
      path: '/api/v1/storage',
      access: 'write',
      summary: 'Upload a file',
      description:
        'The request body is the file itself (not multipart); Content-Type is its media type (default application/octet-stream) and `filename` names it. Files over the upload limit are refused with 413.',
      query: z.strictObject({ filename: filename.describe('The file name to store, e.g. guide.pdf') }),
      body: {
        kind: 'raw',
        description: 'The file content, sent as the raw body (at most UPLOAD_LIMIT bytes)',
      },
      response: { status: 201, description: 'The stored file', full: { name: 'StoredFile', schema: output } },
      errors: [400, 413, 415],
      example: {
        query: { filename: 'hello.txt' },
        raw: { contentType: 'text/plain', data: 'Hello, school!' },
      },
      async handle(ctx) {
        const { req, services } = ctx;
        const limit = services.config.UPLOAD_LIMIT;
        const contentType = (req.headers['content-type'] ?? 'application/octet-stream').trim();
        if (/^multipart\//i.test(contentType))
          throw new UnsupportedMediaTypeError('the raw file (any media type except multipart/*)');
        const declared = Number(req.headers['content-length']);
        if (Number.isFinite(declared) && declared > limit) {
          ctx.res.set('Connection', 'close');
          throw new PayloadTooLargeError(limit);
        }
        const meter = new Meter(limit);
        const upload = bucket(services.connection).openUploadStream(ctx.query.filename as string, {
          metadata: {
            contentType,
            uploadedBy: ctx.principal.kind === 'token' ? ctx.principal.sub : undefined,
          },
        });
        try {
          await pipeline(req, meter, upload);
        } catch (err) {
          await upload.abort().catch(() => undefined);
          if (err instanceof PayloadTooLargeError) ctx.res.set('Connection', 'close');
          throw err;
        }
        if (meter.bytes === 0) {
          await bucket(services.connection)
            .delete(upload.id)
            .catch(() => undefined);
          throw new InvalidRequestError([
            { path: 'body', message: 'is empty: send the file as the request body' },
          ]);
        }
        const sha256 = meter.digest();
        const files = services.connection.collection(`${BUCKET}.files`);
        await files.updateOne({ _id: upload.id }, { $set: { 'metadata.sha256': sha256 } });
        const stored = await files.findOne({ _id: upload.id });
        return {
          status: 201,
          body: {
            id: idOf(upload.id as Types.ObjectId),
            filename: upload.filename,
            content_type: contentType,
            size: meter.bytes,
            sha256,
            created_at: new Date(stored?.uploadDate ?? Date.now()).toISOString(),
          },
        };
      },
    },
    {
      area: 'storage',
      action: 'delete',
      method: 'delete',
      path: '/api/v1/storage/{id}',
      access: 'write',
      summary: 'Delete a file',
      response: { status: 204, description: 'The file is gone' },
      errors: [404],
      async handle(ctx) {
        const id = pathId(ctx.params.id, 'file');
        try {
          await bucket(ctx.services.connection).delete(id);
        } catch (err) {
          if (err instanceof mongoose.mongo.MongoRuntimeError && /File not found/i.test(err.message))
            throw new NotFoundError('no file with this id');
          throw err;
        }
        // Products that listed the file no longer do.
        await ctx.services.connection
          .collection<{ fileIds: Types.ObjectId[] }>('digital_products')
          .updateMany({ fileIds: id }, { $pull: { fileIds: id } });
        return { status: 204 };
      },
    },
  ],
  async init(connection) {
    await connection.collection(`${BUCKET}.files`).createIndex({ filename: 1, uploadDate: 1 });
    await connection.collection(`${BUCKET}.chunks`).createIndex({ files_id: 1, n: 1 }, { unique: true });
  },
};

export default area;
