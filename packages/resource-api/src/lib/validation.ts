/**
 * Turns zod results into the API's problem lists: every problem of params, query and body at once,
 * each with a path a client can act on (`body.lessons.0.title`, `query.limit`).
 */
import type { z } from 'zod';
import type { Problem } from './errors.js';

/** Problems of one zod failure, under `prefix` (`body`, `query`). */
export function problemsOf(prefix: string, error: z.ZodError): Problem[] {
  return error.issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
}

/** Parses `value` with `schema`, appending problems instead of throwing. */
export function collect<T>(schema: z.ZodType<T>, value: unknown, prefix: string, problems: Problem[]): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  problems.push(...problemsOf(prefix, parsed.error));
  return undefined as T;
}
