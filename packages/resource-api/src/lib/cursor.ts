/**
 * Opaque pagination cursors: base64url of `[sortValue, id]`, the position after which the next page
 * starts. Lists sort on one key plus `_id` as the tie-breaker, in the same direction, so ordering is
 * total and stable: walking a list page by page yields every item once, even when many items share a
 * sort value (e.g. a creation timestamp).
 */
import type { Types } from 'mongoose';
import { InvalidRequestError } from './errors.js';
import { isObjectId, oid } from './ids.js';

/** How a list is ordered. */
export interface SortSpec {
  /** Storage field, e.g. `createdAt`. Must never be missing or null on a stored document. */
  field: string;
  /** 1 ascending, -1 descending. */
  order: 1 | -1;
  kind: 'date' | 'number' | 'string';
}

type SortValue = Date | number | string;

/** Encodes the cursor pointing after `doc`. */
export function encodeCursor(sort: SortSpec, doc: Record<string, unknown>): string {
  const raw = doc[sort.field];
  const value = raw instanceof Date ? raw.toISOString() : raw;
  return Buffer.from(JSON.stringify([value, String(doc._id)])).toString('base64url');
}

/** Decodes a cursor, or throws 400 naming the `cursor` parameter. */
export function decodeCursor(sort: SortSpec, cursor: string): { value: SortValue; id: Types.ObjectId } {
  const bad = () =>
    new InvalidRequestError([{ path: 'query.cursor', message: 'is not a cursor of this list' }]);
  // Only what encodeCursor writes: base64url (Buffer would skip other characters silently).
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || !isObjectId(parsed[1])) throw bad();
  const [raw] = parsed as [unknown, string];
  let value: SortValue;
  if (sort.kind === 'date') {
    if (typeof raw !== 'string' || Number.isNaN(Date.parse(raw))) throw bad();
    value = new Date(raw);
  } else if (sort.kind === 'number') {
    if (typeof raw !== 'number' || !Number.isFinite(raw)) throw bad();
    value = raw;
  } else {
    if (typeof raw !== 'string') throw bad();
    value = raw;
  }
  return { value, id: oid(parsed[1]) };
}

/** The filter selecting what comes after the cursor, in the list's order. */
export function afterCursor(sort: SortSpec, cursor: string): Record<string, unknown> {
  const { value, id } = decodeCursor(sort, cursor);
  const op = sort.order === 1 ? '$gt' : '$lt';
  return { $or: [{ [sort.field]: { [op]: value } }, { [sort.field]: value, _id: { [op]: id } }] };
}

/** The Mongo sort document for a list. */
export function sortDocument(sort: SortSpec): Record<string, 1 | -1> {
  return { [sort.field]: sort.order, _id: sort.order };
}
