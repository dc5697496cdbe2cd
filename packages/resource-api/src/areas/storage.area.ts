/**
 * Storage: file uploads into MongoDB GridFS (bucket `storage`), write-only as its one scope
 * (`storage:write`) says: upload and delete, no listing or download through the API. Uploaded files
 * are referenced by id elsewhere (a digital product's `file_ids`).
 *
 * Upload format: the **raw request body is the file** (not multipart): `POST /api/v1/storage?filename=
 * guide.pdf` with `Content-Type` the file's media type. It streams straight into GridFS while its size
 * and SHA-256 are computed, so memory stays flat; over `UPLOAD_LIMIT` it is aborted (the chunks
 * written so far are removed) and answered 413. Multipart bodies are refused with 415.
 *
 * Interrupted writes. A file is two collections, `storage.chunks` (the content) and `storage.files`
 * (one document per file, with its size, media type and SHA-256), and FerretDB has no transactions:
 * - Upload: the chunks are written first and the files document last, in one insert that already
 *   carries the SHA-256, so the file exists (and can be referenced) only once it is complete. An
 *   upload that fails is aborted (its chunks removed); one cut short by a crash leaves chunks no
 *   files document names, which {@link sweepOrphanChunks} removes (at start-up, and at most hourly on
 *   later uploads) once they are older than any upload can take.
 * - Delete: first the references (products' `file_ids`), then the files document (the file is gone),
 *   then the chunks. A crash between the steps leaves an unreferenced file or orphan chunks, never a
 *   product naming a missing file; a retried DELETE finishes the job even when it answers 404.
 */
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import mongoose, { Types, type Connection } from 'mongoose';
import { z } from 'zod';
import {
  InvalidRequestError,
  NotFoundError,
  RequestTooLargeError,
  UnsupportedMediaTypeError,
} from '../lib/errors.js';
import { pathId } from '../lib/ids.js';
import type { AreaModule } from '../lib/operation.js';
import { idOf, instant } from '../lib/wire.js';

const BUCKET = 'storage';

const bucket = (connection: Connection) =>
  new mongoose.mongo.GridFSBucket(connection.db!, { bucketName: BUCKET });

/** Older than this, chunks without a files document belong to no upload in progress (REQUEST_TIMEOUT_MS ≤ 1 h). */
export const ORPHAN_AGE_MS = 2 * 3_600_000;

/**
 * Removes the chunks of uploads that never finished: no files document names them and their upload
 * id (an ObjectId, so a timestamp) is older than `olderThan`. Returns how many uploads it cleared.
 */
export async function sweepOrphanChunks(
  connection: Connection,
  olderThan = new Date(Date.now() - ORPHAN_AGE_MS),
): Promise<number> {
  const chunks = connection.collection(`${BUCKET}.chunks`);
  const cutoff = Types.ObjectId.createFromTime(Math.floor(olderThan.getTime() / 1000));
  const ids = (await chunks.distinct('files_id', { files_id: { $lt: cutoff } })) as Types.ObjectId[];
  if (!ids.length) return 0;
  const complete = await connection
    .collection(`${BUCKET}.files`)
    .find({ _id: { $in: ids } }, { projection: { _id: 1 } })
    .toArray();
  const known = new Set(complete.map((d) => String(d._id)));
  const orphans = ids.filter((id) => !known.has(String(id)));
  if (orphans.length) await chunks.deleteMany({ files_id: { $in: orphans } });
  return orphans.length;
}

let lastSweep = 0;
/** Runs {@link sweepOrphanChunks} at most once an hour per process, in the background. */
function sweepNowAndThen(connection: Connection, logger: { warn(o: object, m: string): void }): void {
  if (Date.now() - lastSweep < 3_600_000) return;
  lastSweep = Date.now();
  sweepOrphanChunks(connection).catch((err: unknown) =>
    logger.warn({ err: (err as Error).message }, 'orphan chunk sweep failed'),
  );
}

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

const EMPTY = () =>
  new InvalidRequestError([{ path: 'body', message: 'is empty: send the file as the request body' }]);

/**
 * Counts and hashes what passes through; fails once more than `max` bytes went by, or at the end if
 * nothing did. At the end, before the upload stream writes the files document, it hands over the
 * SHA-256 (`onDigest`), so that document is complete in its one insert.
 */
class Meter extends Transform {
  bytes = 0;
  sha256 = '';
  private readonly hash = createHash('sha256');
  constructor(
    private readonly max: number,
    private readonly onDigest: (sha256: string) => void,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
    this.bytes += chunk.length;
    if (this.bytes > this.max) return done(new RequestTooLargeError(this.max));
    this.hash.update(chunk);
    done(null, chunk);
  }
  override _flush(done: TransformCallback) {
    if (this.bytes === 0) return done(EMPTY());
    this.sha256 = this.hash.digest('hex');
    this.onDigest(this.sha256);
    done();
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
        // Refused on its declared size, the body is left for Node to read and discard after the
        // answer, on a connection kept open: closing it while a proxy is still sending made the proxy
        // lose our 413 and answer 502. REQUEST_TIMEOUT_MS bounds the reading.
        if (Number.isFinite(declared) && declared > limit) throw new RequestTooLargeError(limit);
        sweepNowAndThen(services.connection, services.logger);
        // The files document is written when the stream ends, from these options: the metadata
        // object gets the SHA-256 just before (Meter's flush), so it is complete when it appears.
        const metadata: Record<string, unknown> = {
          contentType,
          uploadedBy: ctx.principal.kind === 'token' ? ctx.principal.sub : undefined,
        };
        const upload = bucket(services.connection).openUploadStream(ctx.query.filename as string, {
          metadata,
        });
        const meter = new Meter(limit, (sha256) => {
          metadata.sha256 = sha256;
        });
        try {
          await pipeline(req, meter, upload);
        } catch (err) {
          // The rest of the body will not be read (over the limit, the database went away): close
          // the connection after the answer, rather than leave it stalled until the keep-alive
          // timeout.
          ctx.res.set('Connection', 'close');
          await upload.abort().catch(() => undefined);
          throw err;
        }
        const sha256 = meter.sha256;
        const files = services.connection.collection(`${BUCKET}.files`);
        const stored = await files.findOne({ _id: upload.id });
        return {
          status: 201,
          body: {
            id: idOf(upload.id),
            filename: upload.filename,
            content_type: contentType,
            size: meter.bytes,
            sha256,
            created_at: new Date((stored?.uploadDate as Date | undefined) ?? Date.now()).toISOString(),
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
        const connection = ctx.services.connection;
        // References first, then the file, then its content (see "Interrupted writes" above).
        await connection
          .collection<{ fileIds: Types.ObjectId[] }>('digital_products')
          .updateMany({ fileIds: id }, { $pull: { fileIds: id } });
        const removed = await connection.collection(`${BUCKET}.files`).deleteOne({ _id: id });
        await connection.collection(`${BUCKET}.chunks`).deleteMany({ files_id: id });
        if (removed.deletedCount === 0) throw new NotFoundError('no file with this id');
        return { status: 204 };
      },
    },
  ],
  async init(connection) {
    await connection.collection(`${BUCKET}.files`).createIndex({ filename: 1, uploadDate: 1 });
    await connection.collection(`${BUCKET}.chunks`).createIndex({ files_id: 1, n: 1 }, { unique: true });
    await sweepOrphanChunks(connection);
  },
};

export default area;
