/**
 * Resource ids on the wire are MongoDB ObjectIds as 24 lowercase hex characters. Anything else in an
 * `{id}` path segment names nothing, so it answers 404 like an unknown id, never 400 or 500.
 */
import { Types } from 'mongoose';
import { z } from 'zod';
import { NotFoundError } from './errors.js';

const OBJECT_ID = /^[0-9a-f]{24}$/;

/** The zod schema of an id (used in bodies, e.g. `course_id`). */
export const objectIdSchema = z
  .string()
  .regex(OBJECT_ID, 'must be an id: 24 lowercase hexadecimal characters')
  .describe('An id: 24 lowercase hexadecimal characters');

/** True when `value` is a well-formed id. */
export function isObjectId(value: unknown): value is string {
  return typeof value === 'string' && OBJECT_ID.test(value);
}

/** Parses a path id, or throws 404. */
export function pathId(value: unknown, noun: string): Types.ObjectId {
  if (!isObjectId(value)) throw new NotFoundError(`no ${noun} with this id`);
  return new Types.ObjectId(value);
}

/** Converts a wire id to an ObjectId (the value was validated already). */
export function oid(value: string): Types.ObjectId {
  return new Types.ObjectId(value);
}
