import { describe, expect, it } from '@jest/globals';
import { clientErrorStatus } from './error-guard.js';

describe('clientErrorStatus', () => {
  it('keeps the 4xx of an exposed http-errors refusal (the body parser’s 413 and 415)', () => {
    expect(
      clientErrorStatus(Object.assign(new Error('request entity too large'), { status: 413, expose: true })),
    ).toBe(413);
    expect(
      clientErrorStatus(Object.assign(new Error('Unsupported Content-Encoding: br2'), { status: 415 })),
    ).toBe(415);
  });

  it('reads a body that does not decompress (a zlib error, which has no status) as 400', () => {
    expect(
      clientErrorStatus(Object.assign(new Error('unknown compression method'), { code: 'Z_DATA_ERROR' })),
    ).toBe(400);
    expect(
      clientErrorStatus(Object.assign(new Error('unexpected end of file'), { code: 'Z_BUF_ERROR' })),
    ).toBe(400);
  });

  it('leaves server errors, hidden 4xx and plain errors to the 500 path', () => {
    expect(clientErrorStatus(Object.assign(new Error('x'), { status: 500 }))).toBeUndefined();
    expect(clientErrorStatus(Object.assign(new Error('x'), { status: 404, expose: false }))).toBeUndefined();
    expect(clientErrorStatus(new Error('boom'))).toBeUndefined();
    expect(clientErrorStatus(undefined)).toBeUndefined();
  });
});
