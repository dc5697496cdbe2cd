/**
 * Reference checks for write inputs: an id in a body (`course_id`, `plan_id`) must name an existing
 * document, else the request is 400 with the offending path, not a dangling reference.
 */
import type { Connection, Types } from 'mongoose';
import type { Problem } from './errors.js';

/** One reference to check. */
export interface Reference {
  /** Wire path for the problem, e.g. `body.course_id`. */
  path: string;
  collection: string;
  ids: Types.ObjectId | readonly Types.ObjectId[] | null | undefined;
  noun: string;
}

/** The problems of every reference that names nothing. */
export async function referenceProblems(connection: Connection, refs: Reference[]): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const ref of refs) {
    if (ref.ids === null || ref.ids === undefined) continue;
    const ids = Array.isArray(ref.ids) ? ref.ids : [ref.ids as Types.ObjectId];
    if (!ids.length) continue;
    const found = await connection
      .collection(ref.collection)
      .find({ _id: { $in: ids } }, { projection: { _id: 1 } })
      .toArray();
    const known = new Set(found.map((d) => String(d._id)));
    const missing = ids.map(String).filter((id) => !known.has(id));
    if (missing.length)
      problems.push({ path: ref.path, message: `no ${ref.noun} with id ${missing.join(', ')}` });
  }
  return problems;
}
