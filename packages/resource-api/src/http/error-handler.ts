/**
 * The last middleware: writes every error in the RFC 6749 shape `{error, error_description}`.
 * API errors go out as declared (status, headers, extras); known library errors are mapped (a Mongo
 * duplicate key is 409, a bad ObjectId cast 404, a Mongoose validation failure 400, an unreachable
 * database 503, a library's own 4xx refusal of the request keeps its status); anything else is a 500
 * `server_error` with a generic text and the request id, the details in the log only.
 */
import { isStorageOutage } from '@school/shared';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import mongoose from 'mongoose';
import {
  OAuthError,
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  RequestTooLargeError,
  ServerError,
  TemporarilyUnavailableError,
} from '../lib/errors.js';
import { isDuplicateKey } from '../lib/models.js';
import type { Logger } from '../logger.js';

function toApiError(err: unknown, requestId: string, logger: Logger): OAuthError {
  if (err instanceof OAuthError) return err;
  if (err instanceof mongoose.Error.CastError) return new NotFoundError();
  if (isDuplicateKey(err)) return new ConflictError('an item with this unique value already exists');
  if (err instanceof mongoose.Error.ValidationError) {
    return new InvalidRequestError(
      Object.values(err.errors).map((e) => ({ path: `body.${e.path}`, message: e.message })),
    );
  }
  if (typeof err === 'object' && err !== null) {
    const e = err as { code?: unknown; name?: string; type?: string; status?: number; limit?: number };
    if (e.type === 'entity.too.large') return new RequestTooLargeError(e.limit ?? 0);
    if (isStorageOutage(err)) {
      logger.error({ err, requestId }, 'database unavailable');
      return new TemporarilyUnavailableError('the database cannot be reached; try again shortly');
    }
    // A library's own refusal of the request (router, body-parser): keep its 4xx, in our shape.
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
      return new OAuthError(e.status, 'invalid_request', 'the request could not be read');
    }
  }
  logger.error({ err, requestId }, 'unhandled error');
  return new ServerError(requestId);
}

/** Builds the error handler. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return function handleError(err, _req, res, next) {
    if (res.headersSent) return next(err);
    const requestId = String(res.locals.requestId ?? '');
    const apiError = toApiError(err, requestId, logger);
    res.status(apiError.status);
    res.set({ 'Cache-Control': 'no-store', Vary: 'Authorization', ...apiError.headers });

    res.json(apiError.toBody());
  };
}

/** 404 for every path no route claims. */
export const notFound: RequestHandler = (req, _res, next) => {
  next(new NotFoundError(`no endpoint at ${req.method} ${req.path}`));
};
