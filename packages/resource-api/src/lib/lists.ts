/**
 * What every list shares: the `limit` and `cursor` parameters, the `{data, next_cursor}` shape, and
 * fetching one page in the list's total order (see `cursor.ts`): one more document than asked for is
 * read, so the last page is known without a count.
 */
import { z } from 'zod';
import { afterCursor, encodeCursor, sortDocument, type SortSpec } from './cursor.js';
import { allOf } from './filters.js';
import type { LooseModel } from './models.js';

/** The limit every list takes. */
export const limitParam = z.coerce
  .number()
  .int()
  .min(1)
  .max(100)
  .optional()
  .describe('Page size, 1-100 (default 20)');
/** The cursor every list takes. */
export const cursorParam = z
  .string()
  .max(500)
  .optional()
  .describe('The next_cursor of the previous page; omit for the first page');

/** A list response schema. */
export function listOf(item: z.ZodType) {
  return z.strictObject({
    data: z.array(item),
    next_cursor: z
      .string()
      .nullable()
      .describe('Pass as `cursor` to get the next page; null on the last page'),
  });
}

/** One page of documents matching every filter in `parts`, after `query.cursor`. */
export async function listPage<T>(
  model: LooseModel,
  parts: Record<string, unknown>[],
  sort: SortSpec,
  query: Record<string, unknown>,
): Promise<{ data: T[]; next_cursor: string | null }> {
  const filter = typeof query.cursor === 'string' ? [...parts, afterCursor(sort, query.cursor)] : parts;
  const limit = (query.limit as number | undefined) ?? 20;
  const docs = (await model
    .find(allOf(filter))
    .sort(sortDocument(sort))
    .limit(limit + 1)
    .lean()) as T[];
  const page = docs.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: page,
    next_cursor: docs.length > limit && last ? encodeCursor(sort, last) : null,
  };
}
