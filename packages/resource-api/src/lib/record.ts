/**
 * What an area's declared fields (`fields.ts`) give: the mongoose schema definition, the full and
 * public wire schemas with their `toApi` mappings, the input schema and the wire → stored mapping.
 *
 * Wire order: the id, the public fields, the other fields (each in declaration order), then the
 * timestamps, so the public view is a prefix of the full one. Input order is declaration order.
 */
import type { SchemaDefinition } from 'mongoose';
import { z } from 'zod';
import { storageName, type Field } from './fields.js';
import { instant, isoRequired } from './wire.js';

type Doc = Record<string, unknown>;

/** An area's fields, by wire name. */
export type Fields = Record<string, Field>;

/** How the id and timestamps appear on the wire. */
export interface RecordOptions {
  /** The id's wire schema; `false`: no id on the wire (a single-document area). */
  id?: z.ZodType | false;
  /** Which timestamps the wire shows (default both). */
  timestamps?: 'both' | 'updated' | 'none';
}

/** Everything derived from the fields. */
export interface DerivedRecord {
  /** The mongoose schema definition (timestamps are the schema's option). */
  definition: SchemaDefinition;
  output: z.ZodObject;
  /** The anonymous view; undefined when no field is public. */
  publicOutput?: z.ZodObject;
  toApi: (doc: Doc) => Doc;
  toPublic: (doc: Doc) => Doc;
  /** The create input (strict); the update input is its partial. */
  input: z.ZodObject;
  /** Validated wire input → stored fields; keys absent stay absent and null clears. */
  toStore: (input: Doc) => Doc;
  /** A whole wire document → stored fields (every stored field, writable or not): the seed's path. */
  toStored: (wire: Doc) => Doc;
}

/** Derives an area's record from its fields. */
export function recordOf(fields: Fields, options: RecordOptions = {}): DerivedRecord {
  const entries = Object.entries(fields);
  const publicEntries = entries.filter(([, f]) => f.isPublic);
  const ordered = [...publicEntries, ...entries.filter(([, f]) => !f.isPublic)];
  const idSchema = options.id === undefined ? z.string() : options.id;
  const idShape = idSchema ? { id: idSchema } : {};
  const shown = options.timestamps ?? 'both';
  const stamps = {
    ...(shown === 'both' ? { created_at: instant } : {}),
    ...(shown !== 'none' ? { updated_at: instant } : {}),
  };

  const shape = (list: [string, Field][]) => Object.fromEntries(list.map(([k, f]) => [k, f.out]));
  const map = (list: [string, Field][], doc: Doc) => ({
    ...(idSchema ? { id: String(doc._id) } : {}),
    ...Object.fromEntries(list.map(([k, f]) => [k, f.toApi(doc[storageName(k)], doc)])),
  });
  const convert = (list: [string, Field][], wire: Doc) => {
    const out: Doc = {};
    for (const [k, f] of list) {
      const value = wire[k];
      if (value === undefined) continue;
      out[storageName(k)] = value === null ? null : f.toStore(value);
    }
    return out;
  };
  const writable = entries.filter(([, f]) => f.in);
  const stored = entries.filter(([, f]) => f.store);

  return {
    definition: Object.fromEntries(stored.map(([k, f]) => [storageName(k), f.store])) as SchemaDefinition,
    output: z.strictObject({ ...idShape, ...shape(ordered), ...stamps }),
    publicOutput: publicEntries.length ? z.strictObject({ ...idShape, ...shape(publicEntries) }) : undefined,
    toApi: (doc) => ({
      ...map(ordered, doc),
      ...(shown === 'both' ? { created_at: isoRequired(doc.createdAt as Date) } : {}),
      ...(shown !== 'none' ? { updated_at: isoRequired(doc.updatedAt as Date) } : {}),
    }),
    toPublic: (doc) => map(publicEntries, doc),
    input: z.strictObject(Object.fromEntries(writable.map(([k, f]) => [k, f.in!]))),
    toStore: (input) => convert(writable, input),
    toStored: (wire) => convert(stored, wire),
  };
}
