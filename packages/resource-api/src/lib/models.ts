/**
 * Mongoose models as the areas use them: compiled once per connection, typed loosely on purpose, and
 * the recognition of unique-index violations on both MongoDB and FerretDB.
 */
import type { Connection, Model, Schema } from 'mongoose';

/**
 * A model whose documents are plain records, which the area code types itself (casts on the way out):
 * mongoose's query types instantiated over each area's generic document type make tsc run out of
 * memory.
 */
export type LooseModel = Model<Record<string, unknown>>;

/** The model of an area on a connection (compiled once per connection). */
export function modelOn(
  connection: Connection,
  name: string,
  schema: Schema,
  collection: string,
): LooseModel {
  return (
    (connection.models[name] as LooseModel | undefined) ??
    (connection.model(name, schema, collection) as unknown as LooseModel)
  );
}

/**
 * A unique index refused the write. MongoDB says code 11000; FerretDB v1 says so on insert but
 * reports an update that breaks a unique index as an internal error naming the SQLite constraint.
 */
export function isDuplicateKey(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  return code === 11000 || (typeof message === 'string' && /E11000|UNIQUE constraint failed/.test(message));
}
