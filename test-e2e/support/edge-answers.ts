/**
 * What every answer nginx writes itself must look like: the RFC 6749 §5.2 JSON
 * body, or the small HTML page on the browser routes under /oauth/, with the services' security
 * headers and no caching. Shared by the edge's own tests.
 */
import { createHash } from 'node:crypto';
import { expect } from '@jest/globals';

/** The parts of an answer the checks read (a raw socket answer or a fetch Response, flattened). */
export interface SeenAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The headers the services send on their errors, which the edge's own errors must send too. */
function expectSecurityHeaders(headers: Record<string, string>): void {
  expect(headers['cache-control']).toBe('no-store');
  expect(headers['content-security-policy']).toMatch(/default-src 'none'/);
  expect(headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['x-frame-options']).toBe('DENY');
}

/** Asserts an edge answer in the JSON shape with `status` and `error`; returns the body. */
export function expectEdgeJson(
  answer: SeenAnswer,
  status: number,
  error: string,
): { error: string; error_description: string } {
  expect({ status: answer.status, type: answer.headers['content-type'] }).toEqual({
    status,
    type: expect.stringMatching(/^application\/json\b/),
  });
  const body = JSON.parse(answer.body) as { error: string; error_description: string };
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
  expect(body.error).toBe(error);
  expect(body.error_description).toMatch(/\w/);
  expectSecurityHeaders(answer.headers);
  return body;
}

/** Asserts an edge answer as the HTML error page with `status` naming `code`. */
export function expectEdgePage(answer: SeenAnswer, status: number, code: string): void {
  expect({ status: answer.status, type: answer.headers['content-type'] }).toEqual({
    status,
    type: expect.stringMatching(/^text\/html\b/),
  });
  expect(answer.body).toMatch(/^<!doctype html>/);
  expect(answer.body).toContain(`<code>${code}</code>`);
  expect(answer.body).not.toMatch(/nginx|<script/i);
  expectSecurityHeaders(answer.headers);
  // The page's one stylesheet is allowed by its hash, and nothing else is.
  const style = /<style>([^<]*)<\/style>/.exec(answer.body)?.[1] ?? '';
  const hash = createHash('sha256').update(style).digest('base64');
  expect(answer.headers['content-security-policy']).toContain(`style-src 'sha256-${hash}'`);
}

/** Flattens a fetch Response into a {@link SeenAnswer}. */
export async function seen(res: Response): Promise<SeenAnswer> {
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}
