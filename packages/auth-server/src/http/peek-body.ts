/**
 * Our middleware reads a few request bodies before oidc-provider does (the rate limiter needs the
 * client id, client authentication checks the parameters presented). oidc-provider takes a body
 * already read from `req.body` instead of the stream, so the body is read once, bounded, and shared.
 */
import type { Context } from 'koa';

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
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) return 'too_large';
    chunks.push(chunk as Buffer);
  }
  const body = Buffer.concat(chunks, size);
  (ctx.req as RequestWithBody).body = body;
  return body;
}
