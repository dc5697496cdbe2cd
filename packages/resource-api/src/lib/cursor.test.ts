import { describe, expect, it } from '@jest/globals';
import { Types } from 'mongoose';
import { afterCursor, decodeCursor, encodeCursor, type SortSpec } from './cursor.js';
import { InvalidRequestError } from './errors.js';

const byDate: SortSpec = { field: 'createdAt', order: -1, kind: 'date' };
const byNumber: SortSpec = { field: 'position', order: 1, kind: 'number' };

describe('cursors', () => {
  it('round-trip the sort value and the id', () => {
    const _id = new Types.ObjectId();
    const createdAt = new Date('2024-05-06T07:08:09.010Z');
    const decoded = decodeCursor(byDate, encodeCursor(byDate, { _id, createdAt }));
    expect(decoded.value).toEqual(createdAt);
    expect(decoded.id.equals(_id)).toBe(true);
  });

  it('select what comes after, in the list direction, breaking ties by id', () => {
    const _id = new Types.ObjectId();
    expect(afterCursor(byNumber, encodeCursor(byNumber, { _id, position: 3 }))).toEqual({
      $or: [{ position: { $gt: 3 } }, { position: 3, _id: { $gt: _id } }],
    });
  });

  it.each([
    ['%%%'],
    [Buffer.from('{}').toString('base64url')],
    [Buffer.from('["2024-01-01","xyz"]').toString('base64url')],
  ])('refuse %s with 400 naming the cursor', (bad) => {
    expect(() => decodeCursor(byDate, bad)).toThrow(InvalidRequestError);
  });

  it('refuse a cursor of a list sorted by another kind of value', () => {
    const cursor = encodeCursor(byDate, { _id: new Types.ObjectId(), createdAt: new Date() });
    expect(() => decodeCursor(byNumber, cursor)).toThrow(InvalidRequestError);
  });
});
