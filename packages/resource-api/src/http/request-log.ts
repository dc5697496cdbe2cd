/**
 * One structured log line per request, carrying the request id the edge sent (`X-Request-Id`) or a
 * new one, which is also echoed on the response so a client report can be matched to the logs. Only
 * the path is logged, never the query string or body (they can carry personal data). Every request,
 * probes included, is also counted in the metrics (http/metrics.ts) by route template.
 */
import { METRICS_PATH, requestIdFrom, type ServiceMetrics } from '@school/shared';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logger.js';
import { routeOf } from './metrics.js';

/** Express middleware logging each request (health probes excepted) and setting `res.locals.requestId`. */
export function requestLog(logger: Logger, metrics?: ServiceMetrics): RequestHandler {
  // The line's fields are all flat strings and numbers chosen here, none of them secret, so the
  // logger's redaction (which copies every logged object, ~3 % of a cached read's CPU) has nothing
  // to do on them.
  const lines = logger.child({}, { redact: [] });
  return function logRequest(req: Request, res: Response, next: NextFunction) {
    const requestId = requestIdFrom(req.get('x-request-id'));
    const started = process.hrtime.bigint();
    const ip = req.ip; // read now: after a failed upload the socket may already be gone at 'finish'
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    res.once('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      metrics?.observeRequest(req.method, routeOf(req), res.statusCode, ms / 1000);
      if (req.path === '/healthz' || req.path === '/readyz' || req.path === METRICS_PATH) return;
      lines.info(
        { requestId, method: req.method, path: req.path, status: res.statusCode, ms, ip },
        'request',
      );
    });
    next();
  };
}
