/**
 * The request target, checked once before any route reads it (RFC 3986 §2, RFC 3629): only printable
 * ASCII on the wire, and every percent-encoded sequence in the path and the query must decode to
 * valid UTF-8. Otherwise the request is 400 `invalid_request` naming the part, rather than a path
 * nothing matches or a query value silently carrying U+FFFD replacement characters.
 */
import type { NextFunction, Request, Response } from 'express';
import { InvalidRequestError } from '../lib/errors.js';

/** True when `text` percent-decodes to valid UTF-8. */
export function decodesAsUtf8(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/** The middleware. */
export function checkRequestTarget(req: Request, _res: Response, next: NextFunction): void {
  const target = req.url;
  if (/[^\x21-\x7e]/.test(target)) {
    return next(
      new InvalidRequestError([
        { path: 'url', message: 'has characters outside printable ASCII: percent-encode them' },
      ]),
    );
  }
  const mark = target.indexOf('?');
  const path = mark === -1 ? target : target.slice(0, mark);
  const query = mark === -1 ? '' : target.slice(mark + 1).replace(/\+/g, ' ');
  const problems = [
    ...(decodesAsUtf8(path) ? [] : [{ path: 'path', message: 'is not valid UTF-8 once percent-decoded' }]),
    ...(decodesAsUtf8(query) ? [] : [{ path: 'query', message: 'is not valid UTF-8 once percent-decoded' }]),
  ];
  if (problems.length) return next(new InvalidRequestError(problems));
  next();
}
