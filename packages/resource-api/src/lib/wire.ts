/**
 * Wire value schemas and the conversions `fields.ts` builds its kinds from. The wire is snake_case
 * JSON with string ids and ISO 8601 instants; storage is camelCase with ObjectIds and Dates.
 */
import { Types } from 'mongoose';
import { z } from 'zod';

/** An ISO 8601 instant on the wire. */
export const instant = z.iso.datetime({ offset: true });

/** Money in minor units (cents). */
export const cents = z.number().int().min(0).max(100_000_000);

/** An ISO 4217 currency code. */
export const currency = z.string().regex(/^[A-Z]{3}$/, 'must be a 3-letter ISO 4217 code such as USD');

/** A URL-safe slug. */
export const slug = z
  .string()
  .min(1)
  .max(120)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lowercase letters, digits and single dashes');

/** An absolute http(s) URL. */
export const httpUrl = z
  .string()
  .max(2000)
  .url()
  .refine((u) => /^https?:\/\//.test(u), 'must be an http(s) URL');

/** An IANA time zone name. */
export const timezone = z
  .string()
  .max(64)
  .refine((tz) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  }, 'must be an IANA time zone such as Europe/Berlin');

/** Date → ISO string; null/undefined → null. */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return new Date(value).toISOString();
}

/** Date → ISO string for required fields. */
export function isoRequired(value: Date | string): string {
  return new Date(value).toISOString();
}

/** ObjectId → string. */
export function idOf(value: Types.ObjectId | string): string {
  return String(value);
}

/** Several ObjectIds → strings. */
export function idsOf(values: readonly (Types.ObjectId | string)[] | undefined): string[] {
  return (values ?? []).map(String);
}

/** String ids → ObjectIds. */
export function toObjectIds(values: readonly string[]): Types.ObjectId[] {
  return values.map((v) => new Types.ObjectId(v));
}

/** A URL slug from a title. */
export function slugify(text: string): string {
  return (
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 120) || 'item'
  );
}

/** Conversion for ISO strings → Date. */
export const asDate = (v: unknown): Date => new Date(v as string);
/** Conversion for an id string → ObjectId. */
export const asId = (v: unknown): Types.ObjectId => new Types.ObjectId(v as string);
/** Conversion for id strings → ObjectIds. */
export const asIds = (v: unknown): Types.ObjectId[] => toObjectIds(v as string[]);
