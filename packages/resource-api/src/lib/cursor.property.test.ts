/**
 * Properties of pagination cursors over generated input: what encodeCursor writes decodes to the same
 * position, and whatever a client sends as `cursor` is either such a position — a value of the list's
 * sort type and a well-formed id, never an object that could smuggle a query operator into the
 * filter — or a 400 naming the cursor. Nothing else is ever thrown.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { Types } from 'mongoose';
import { afterCursor, decodeCursor, encodeCursor, type SortSpec } from './cursor.js';
import { InvalidRequestError } from './errors.js';

const SPECS: SortSpec[] = [
  { field: 'createdAt', order: -1, kind: 'date' },
  { field: 'position', order: 1, kind: 'number' },
  { field: 'code', order: 1, kind: 'string' },
];
const objectId = fc.stringMatching(/^[0-9a-f]{24}$/);
const valueOf: Record<SortSpec['kind'], fc.Arbitrary<Date | number | string>> = {
  date: fc.date({ noInvalidDate: true, min: new Date(-8.64e15), max: new Date(8.64e15) }),
  number: fc.double({ noNaN: true, noDefaultInfinity: true }),
  string: fc.string({ unit: 'binary', maxLength: 60 }),
};
const asBase64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** Decodes, or answers the error; asserts the error is the 400 and nothing else. */
function attempt(sort: SortSpec, cursor: string) {
  try {
    return decodeCursor(sort, cursor);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect((err as InvalidRequestError).toBody()).toMatchObject({
      error: 'invalid_request',
      problems: [{ path: 'query.cursor', message: 'is not a cursor of this list' }],
    });
    return undefined;
  }
}

function expectWellTyped(sort: SortSpec, decoded: { value: unknown; id: unknown }) {
  if (sort.kind === 'date') expect(decoded.value).toBeInstanceOf(Date);
  else expect(typeof decoded.value).toBe(sort.kind);
  expect(decoded.id).toBeInstanceOf(Types.ObjectId);
}

describe.each(SPECS)('cursors of a list sorted by $kind (properties)', (sort) => {
  it('decode to the very position they were encoded from', () => {
    fc.assert(
      fc.property(valueOf[sort.kind], objectId, (value, id) => {
        const doc = { _id: new Types.ObjectId(id), [sort.field]: value };
        const decoded = decodeCursor(sort, encodeCursor(sort, doc));
        if (value instanceof Date) expect((decoded.value as Date).getTime()).toBe(value.getTime());
        else if (typeof value === 'number')
          expect(decoded.value === value).toBe(true); // -0 is 0 in JSON
        else expect(decoded.value).toBe(value);
        expect(String(decoded.id)).toBe(id);
      }),
      { numRuns: 500 },
    );
  });

  it('turn any string a client sends into a typed position or a 400, nothing else', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 500 }),
          fc.base64String({ maxLength: 200 }),
          fc.jsonValue().map((v) => asBase64url(JSON.stringify(v))),
          fc
            .tuple(fc.jsonValue(), fc.oneof(objectId, fc.jsonValue()))
            .map((t) => asBase64url(JSON.stringify(t))),
        ),
        (cursor) => {
          const decoded = attempt(sort, cursor);
          if (decoded) expectWellTyped(sort, decoded);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('never let an object into the filter: operator objects in the sort position are refused', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('$ne', '$gt', '$where', '$regex', '$exists'), fc.jsonValue(), {
          minKeys: 1,
        }),
        objectId,
        (operator, id) => {
          expect(attempt(sort, asBase64url(JSON.stringify([operator, id])))).toBeUndefined();
        },
      ),
    );
  });

  it('build the after-filter from primitives and ids only, in the list direction', () => {
    fc.assert(
      fc.property(valueOf[sort.kind], objectId, (value, id) => {
        const cursor = encodeCursor(sort, { _id: new Types.ObjectId(id), [sort.field]: value });
        const op = sort.order === 1 ? '$gt' : '$lt';
        const filter = afterCursor(sort, cursor) as { $or: Record<string, unknown>[] };
        expect(Object.keys(filter)).toEqual(['$or']);
        expect(filter.$or).toHaveLength(2);
        expect(Object.keys(filter.$or[0]![sort.field] as object)).toEqual([op]);
        expect(Object.keys(filter.$or[1]!._id as object)).toEqual([op]);
      }),
    );
  });
});
