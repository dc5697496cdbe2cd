/**
 * List filters as data: each declares its query parameter(s), their schema and the Mongo condition
 * they add. The list operation's query schema, its Mongo filter and its OpenAPI parameters all come
 * from these declarations.
 */
import { z } from 'zod';
import { objectIdSchema, oid } from './ids.js';

/**
 * Conditions that must all hold, as one filter: empty ones dropped, a single one as itself, several
 * under `$and`. It matches what `{$and: parts}` matches, in the form MongoDB-protocol servers answer
 * best: FerretDB's SQLite backend pushes conditions (the `_id` index above all) down to SQL only at
 * the top level of a filter, and scans the whole collection for an `$and`.
 */
export function allOf(parts: Record<string, unknown>[]): Record<string, unknown> {
  const some = parts.filter((p) => Object.keys(p).length > 0);
  if (some.length === 0) return {};
  return some.length === 1 ? some[0]! : { $and: some };
}

/** One query parameter of a list and the condition it adds. */
export interface FilterSpec {
  param: string;
  schema: z.ZodType;
  toFilter(value: unknown): Record<string, unknown>;
}

/** A true/false parameter for a boolean field, e.g. `active`: `what` says what each value keeps. */
export function flagFilter(param: string, field: string, what: string) {
  return {
    param,
    schema: z.enum(['true', 'false']).optional().describe(what),
    toFilter: (v: unknown) => ({ [field]: v === 'true' }),
  } satisfies FilterSpec;
}

/** An ISO 8601 date (`2025-01-31`) or date-time with offset. */
export const dateParam = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .describe('ISO 8601 date or date-time');

/** Equality on a field with an enumerated value (e.g. `status`). */
export function enumFilter(
  param: string,
  field: string,
  values: readonly [string, ...string[]],
  what: string,
) {
  return {
    param,
    schema: z.enum(values).optional().describe(`Only ${what} with this ${param}`),
    toFilter: (v: unknown) => ({ [field]: v }),
  } satisfies FilterSpec;
}

/** Equality on a reference (an id), e.g. `course_id`. */
export function idFilter(param: string, field: string, what: string) {
  return {
    param,
    schema: objectIdSchema.optional().describe(`Only ${what} with this ${param}`),
    toFilter: (v: unknown) => ({ [field]: oid(v as string) }),
  } satisfies FilterSpec;
}

/** Equality on a string field, e.g. `email`. */
export function stringFilter(param: string, field: string, what: string, transform = (s: string) => s) {
  return {
    param,
    schema: z.string().min(1).max(200).optional().describe(`Only ${what} with this ${param}`),
    toFilter: (v: unknown) => ({ [field]: transform(v as string) }),
  } satisfies FilterSpec;
}

/** A date range on `field`: `<prefix>_from` (inclusive) and `<prefix>_to` (exclusive). */
export function dateRangeFilters(prefix: string, field: string, what: string): FilterSpec[] {
  return [
    {
      param: `${prefix}_from`,
      schema: dateParam.optional().describe(`Only ${what} at or after this instant`),
      toFilter: (v) => ({ [field]: { $gte: new Date(v as string) } }),
    },
    {
      param: `${prefix}_to`,
      schema: dateParam.optional().describe(`Only ${what} before this instant`),
      toFilter: (v) => ({ [field]: { $lt: new Date(v as string) } }),
    },
  ];
}

/** Escapes a user's text for use inside a regular expression. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A case-insensitive substring search over `fields` (FerretDB has no $text index). */
export function searchFilter(fields: string[], q: string): Record<string, unknown> {
  const regex = { $regex: escapeRegex(q), $options: 'i' };
  return { $or: fields.map((f) => ({ [f]: regex })) };
}
