/**
 * One structured log line per request, carrying the request id the edge sent (`X-Request-Id`) or a
 * new one, which is also echoed on the response so a client report can be matched to the logs. Only
 * the path is logged, never the query string or body (they can hold codes, tokens and passwords).
 * Every request, probes included, is also counted in the metrics (http/metrics.ts) by route template.
 *
 * Both happen on the response's `close`, which Node emits once the answer is written and also when
 * the connection closed before it was; one listener, no dependency. Not in this step's `finally`:
 * that ran before Koa wrote the answer, so it logged 404 for an error Koa then answered with its own
 * status, and a request whose client had gone was logged only when its handler finished. Now the
 * client never waits for the line, and its time is the whole answer's, its writing included. A
 * refused request's line also says why (`error`, `cause`).
 */
import { METRICS_PATH, requestIdFrom, type ServiceMetrics } from '@school/shared';
import type { Context, Middleware } from 'koa';
import { routeOf } from './metrics.js';
import type { Logger } from '../logger.js';

/** The longest cause a line carries; descriptions are the server's own words, bounded anyway. */
const CAUSE_CHARS = 300;

/**
 * Why a refused request was refused, for its log line: the error code and description a page showed
 * (`ctx.state.refusal`, set by the error pages) or the RFC 6749 body answered. So every refusal,
 * the pages' included, can be found in the logs by the reference the person quotes.
 */
function refusalOf(ctx: Context): { error?: string; cause?: string } {
  const body = (ctx.state.refusal ?? ctx.body) as unknown;
  if (typeof body !== 'object' || body === null || Buffer.isBuffer(body)) return {};
  const { error, error_description } = body as { error?: unknown; error_description?: unknown };
  if (typeof error !== 'string') return {};
  return typeof error_description === 'string'
    ? { error, cause: error_description.slice(0, CAUSE_CHARS) }
    : { error };
}

/** Koa middleware logging each request and setting `ctx.state.requestId`. */
export function requestLog(logger: Logger, metrics?: ServiceMetrics): Middleware {
  // The line's fields are all flat strings and numbers chosen here, none of them secret, so the
  // logger's redaction (which copies every logged object, ~7 µs per line) has nothing to do on them.
  const lines = logger.child({}, { redact: [] });
  return async (ctx, next) => {
    const requestId = requestIdFrom(ctx.get('x-request-id'));
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    const ip = ctx.ip; // read now: a connection that closed early may have no address by then
    ctx.res.once('close', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      metrics?.observeRequest(ctx.method, routeOf(ctx), ctx.status, ms / 1000);
      if (ctx.path !== '/healthz' && ctx.path !== '/readyz' && ctx.path !== METRICS_PATH) {
        const line = { requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms, ip };
        lines.info(ctx.status >= 400 ? { ...line, ...refusalOf(ctx) } : line, 'request');
      }
    });
    await next();
    return;
  };
}
