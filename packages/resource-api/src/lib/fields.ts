/**
 * Fields as data: an area declares each field once, by kind, and everything else about it is
 * derived (see `record.ts`): its mongoose path, its wire (output) schema, the stored → wire mapping
 * and the wire → stored conversion. A field that clients may write also names its input schema,
 * because input constraints (lengths, formats, defaults in words) are the field's own.
 *
 * Names: the wire name is the key an area gives (snake_case); the storage name is its camelCase
 * (`price_cents` ↔ `priceCents`). Kinds carry the conversions: an `instant` is a Date stored and an
 * ISO string on the wire, a `ref` an ObjectId stored and a string on the wire. Fields that really
 * differ (embedded lists, computed values) say how with `custom` and `computed`.
 */
import { Schema } from 'mongoose';
import { z } from 'zod';
import { asDate, asId, asIds, idOf, idsOf, instant as instantSchema, isoRequired } from './wire.js';

type Doc = Record<string, unknown>;

/** One declared field. Immutable: each method returns a changed copy. */
export interface Field {
  /** The wire schema (output side). */
  readonly out: z.ZodType;
  /** The input schema on create (update takes it optional); absent: clients cannot write it. */
  readonly in?: z.ZodType;
  /** The mongoose path; absent: not stored (computed). */
  readonly store?: Record<string, unknown>;
  /** In the anonymous (public) view. */
  readonly isPublic: boolean;
  /** Stored value → wire value (`doc`: the whole stored document, for computed fields). */
  toApi: (value: unknown, doc: Doc) => unknown;
  /** Wire value (validated, not null) → stored value. */
  toStore: (value: unknown) => unknown;

  /** Clients may write it, validated by `schema` (create) and `schema.optional()` (update). */
  input(schema: z.ZodType): Field;
  /** Part of the public view. */
  public(): Field;
  /** May be null on the wire (a missing stored value is null). */
  nullable(): Field;
  /** Required in storage. */
  required(): Field;
  /** The stored default; a missing stored value reads as it. */
  default(value: unknown): Field;
  /** Adds mongoose path options (`unique`, `index`, `lowercase`, ...). */
  with(options: Record<string, unknown>): Field;
  /** Describes the wire value in the document. */
  describe(text: string): Field;
  /** Replaces the wire → stored conversion (e.g. lowercasing an email). */
  storing(convert: (value: unknown) => unknown): Field;
}

interface Parts {
  out: z.ZodType;
  in?: z.ZodType;
  store?: Record<string, unknown>;
  isPublic?: boolean;
  toApi: (value: unknown, doc: Doc) => unknown;
  toStore?: (value: unknown) => unknown;
}

function field(p: Parts): Field {
  const f: Field = {
    out: p.out,
    in: p.in,
    store: p.store,
    isPublic: p.isPublic ?? false,
    toApi: p.toApi,
    toStore: p.toStore ?? ((v) => v),
    input: (schema) => field({ ...p, in: schema }),
    public: () => field({ ...p, isPublic: true }),
    nullable: () =>
      field({
        ...p,
        out: p.out.nullable(),
        toApi: (v, d) => (v === null || v === undefined ? null : p.toApi(v, d)),
      }),
    required: () => f.with({ required: true }),
    default: (value) =>
      field({
        ...p,
        store: { ...p.store, default: value },
        toApi: typeof value === 'function' ? p.toApi : (v, d) => p.toApi(v ?? value, d),
      }),
    with: (options) => field({ ...p, store: { ...p.store, ...options } }),
    describe: (text) => field({ ...p, out: p.out.describe(text) }),
    storing: (convert) => field({ ...p, toStore: convert }),
  };
  return f;
}

const plain = (out: z.ZodType, type: unknown) => field({ out, store: { type }, toApi: (v) => v });

/** A string. */
export const text = () => plain(z.string(), String);
/** A required one-line text, e.g. a title or a name: trimmed, not blank, up to 200 characters. */
export const requiredText = () => text().required().input(z.string().max(200).trim().min(1));
/** A person's email, their unique key in the area: required, stored trimmed and in lower case. */
export const uniqueEmail = () =>
  text()
    .required()
    .with({ unique: true, lowercase: true, trim: true })
    .storing((v) => String(v).toLowerCase())
    .input(z.email().max(254));
/** One of `values`. */
export const choice = <const V extends readonly [string, ...string[]]>(values: V) =>
  field({ out: z.enum(values), store: { type: String, enum: values }, toApi: (v) => v });
/** An integer. */
export const integer = () => plain(z.number().int(), Number);
/** A number. */
export const number = () => plain(z.number(), Number);
/** A boolean. */
export const flag = () => plain(z.boolean(), Boolean);
/** A list of strings (stored default: empty). */
export const texts = () => plain(z.array(z.string()), [String]).default([]);
/** An instant: a Date stored, an ISO 8601 string on the wire. */
export const instant = () =>
  field({
    out: instantSchema,
    store: { type: Date },
    toApi: (v) => isoRequired(v as Date),
    toStore: asDate,
  });
/** The id of another document: an ObjectId stored, a string on the wire. */
export const ref = () =>
  field({
    out: z.string(),
    store: { type: Schema.Types.ObjectId },
    toApi: (v) => idOf(v as string),
    toStore: asId,
  });
/** Ids of other documents (stored default: empty). */
export const refs = () =>
  field({
    out: z.array(z.string()),
    store: { type: [Schema.Types.ObjectId], default: [] },
    toApi: (v) => idsOf(v as string[] | undefined),
    toStore: asIds,
  });
/** A field whose conversions are its own (embedded lists); `store` absent: not stored. */
export const custom = (parts: Parts) => field(parts);
/** A wire-only value computed from the stored document. */
export const computed = (out: z.ZodType, compute: (doc: Doc) => unknown) =>
  field({ out, toApi: (_v, d) => compute(d) });

/** The storage name of a wire name: `price_cents` → `priceCents`. */
export function storageName(wire: string): string {
  return wire.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}
