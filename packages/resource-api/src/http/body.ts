/**
 * Request bodies of JSON operations: the media type and charset are checked before anything is read
 * (415), the size while reading (413, also straight from Content-Length), then the bytes must be
 * valid UTF-8 (RFC 8259 §8.1) nested at most {@link MAX_DEPTH} deep (400), then the JSON syntax (400).
 * A request with no body at all counts as `{}`, so a create without a body lists every missing field.
 */
import { isUtf8 } from 'node:buffer';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import {
  OAuthError,
  InvalidRequestError,
  RequestTooLargeError,
  UnsupportedMediaTypeError,
} from '../lib/errors.js';

/** Deepest nesting of arrays and objects accepted; no input schema comes near it. */
export const MAX_DEPTH = 32;

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The deepest nesting of `[`/`{` in JSON text (brackets inside strings do not count). */
export function jsonDepth(text: Uint8Array): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

class BodyProblem extends Error {
  constructor(readonly problem: string) {
    super(problem);
  }
}

/** Refuses bodies that are not UTF-8 or are nested too deeply (body-parser's `verify` hook). */
function verify(_req: Request, _res: Response, buf: Buffer): void {
  if (!isUtf8(buf)) throw new BodyProblem('is not valid UTF-8');
  if (jsonDepth(buf) > MAX_DEPTH) throw new BodyProblem(`is nested deeper than ${MAX_DEPTH} levels`);
}

/** Parses a JSON body of at most `limit` bytes into `req.body`. */
export function jsonBody(limit: number): RequestHandler {
  const parse = express.json({ limit, strict: true, type: () => true, verify });
  return function readJson(req: Request, res: Response, next: NextFunction) {
    if (!hasBody(req)) {
      req.body = {};
      return next();
    }
    if (!req.is('application/json') && !req.is('application/*+json')) {
      return next(new UnsupportedMediaTypeError('application/json'));
    }
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1];
    if (charset !== undefined && charset.toLowerCase() !== 'utf-8') {
      return next(new UnsupportedMediaTypeError('application/json in UTF-8'));
    }
    parse(req, res, (err?: unknown) => {
      if (!err) return next();
      // body-parser hands on what `verify` threw, itself (with a status of 403 we do not use).
      if (err instanceof BodyProblem)
        return next(new InvalidRequestError([{ path: 'body', message: err.problem }]));
      const e = err as { type?: string };
      if (e.type === 'entity.too.large') return next(new RequestTooLargeError(limit));
      if (e.type === 'entity.parse.failed')
        return next(new InvalidRequestError([{ path: 'body', message: 'is not valid JSON' }]));
      if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported')
        return next(new UnsupportedMediaTypeError('application/json in UTF-8'));
      return next(err);
    });
  };
}

/**
 * Raw bodies (the file upload) are stored byte for byte, so a content coding would be stored as the
 * file (a gzip stream kept as `text/plain`): refuse any coding but `identity` with 415 and
 * `Accept-Encoding: identity` (RFC 9110 §15.5.16). JSON bodies need no such step: body-parser decodes
 * gzip, deflate and br and refuses other codings itself.
 */
export const plainRawBody: RequestHandler = (req, _res, next) => {
  const codings = (req.headers['content-encoding'] ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0 || !hasBody(req)) return next();
  next(
    new OAuthError(
      415,
      'unsupported_media_type',
      'the file must be sent as it is, with no Content-Encoding',
      {
        'Accept-Encoding': 'identity',
      },
    ),
  );
};
