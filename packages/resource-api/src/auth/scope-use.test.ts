import { describe, expect, it } from '@jest/globals';
import type { NextFunction, Request, Response } from 'express';
import { setPrincipal } from './principal.js';
import { scopeUseNotes } from './scope-use.js';

/** Runs the step for `scope` as after a passed scope check, for a token of `clientId` and `sub`. */
function serve(
  step: ReturnType<ReturnType<typeof scopeUseNotes>>,
  token: string,
  clientId: string,
  sub: string,
) {
  const res = { locals: { view: 'full' } } as unknown as Response;
  setPrincipal(res, { kind: 'token', clientId, sub, scopes: new Set(['courses:read']) });
  let nexted = false;
  step(
    { headers: { authorization: `Bearer ${token}` } } as Request,
    res,
    (() => (nexted = true)) as NextFunction,
  );
  expect(nexted).toBe(true);
}

describe('reports of scope use', () => {
  it('reports each app, account and scope once within the minute, with the token that used it', () => {
    const reports: [string, string][] = [];
    const note = scopeUseNotes({ noteUse: (token, scope) => reports.push([token, scope]) });
    const courses = note('courses:read');
    serve(courses, 'tok-1', 'app-a', 'ada');
    serve(courses, 'tok-2', 'app-a', 'ada');
    serve(courses, 'tok-3', 'app-b', 'ada');
    serve(note('students:read'), 'tok-1', 'app-a', 'ada');
    expect(reports).toEqual([
      ['tok-1', 'courses:read'],
      ['tok-3', 'courses:read'],
      ['tok-1', 'students:read'],
    ]);
  });

  it('reports nothing for an anonymous caller or a public view', () => {
    const reports: string[] = [];
    const step = scopeUseNotes({ noteUse: (_t, scope) => reports.push(scope) })('courses:read');
    const res = { locals: { view: 'public' } } as unknown as Response;
    step({ headers: {} } as Request, res, (() => undefined) as NextFunction);
    expect(reports).toEqual([]);
  });
});
