/**
 * Our middleware reads a few request bodies before oidc-provider does (the rate limiter needs the
 * client id, client authentication checks the parameters presented). oidc-provider takes a body
 * already read from `req.body` instead of the stream, so the body is read once, bounded, and shared.
 *
 * Read with raw-body (the reader body-parser and co-body use), not `for await` over the stream: the
 * stream's async iterator costs a promise and an end-of-stream watcher per request on the
 * introspection route, the auth server's hottest.
 */
import type { Context } from 'koa';
import getRawBody from 'raw-body';

type RequestWithBody = Context['req'] & { body?: Buffer };

/**
 * The request body (at most `limit` bytes), read once and left on `req.body` for oidc-provider;
 * 'too_large' when it is over the limit.
 */
export async function peekBody(ctx: Context, limit: number): Promise<Buffer | 'too_large'> {
  const read = (ctx.req as RequestWithBody).body;
  if (Buffer.isBuffer(read)) return read.length > limit ? 'too_large' : read;
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) return 'too_large';
  let body: Buffer;
  try {
    body = await getRawBody(ctx.req, { limit });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') return 'too_large';
    throw err;
  }
  (ctx.req as RequestWithBody).body = body;
  return body;
}
