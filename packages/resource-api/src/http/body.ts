/**
 * Request bodies of JSON operations: the media type is checked before anything is read (415), the
 * size while reading (413, also straight from Content-Length), and the JSON syntax (400). A request
 * with no body at all counts as `{}`, so a create without a body lists every missing field.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { InvalidRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../lib/errors.js';

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Parses a JSON body of at most `limit` bytes into `req.body`. */
export function jsonBody(limit: number): RequestHandler {
  const parse = express.json({ limit, strict: true, type: () => true });
  return function readJson(req: Request, res: Response, next: NextFunction) {
    if (!hasBody(req)) {
      req.body = {};
      return next();
    }
    if (!req.is('application/json') && !req.is('application/*+json')) {
      return next(new UnsupportedMediaTypeError('application/json'));
    }
    parse(req, res, (err?: unknown) => {
      if (!err) return next();
      const type = (err as { type?: string }).type;
      if (type === 'entity.too.large') return next(new PayloadTooLargeError(limit));
      if (type === 'entity.parse.failed')
        return next(new InvalidRequestError([{ path: 'body', message: 'is not valid JSON' }]));
      if (type === 'encoding.unsupported' || type === 'charset.unsupported')
        return next(new UnsupportedMediaTypeError('application/json in UTF-8'));
      return next(err);
    });
  };
}
