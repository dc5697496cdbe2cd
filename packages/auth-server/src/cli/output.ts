/**
 * How every `school-auth` command writes to stdout, in the one style docs/operators.md describes
 * ("Every command writes in one style"): JSON whose keys are snake_case, a time as ISO 8601 in UTC
 * under a key ending in `_at`, a time there is none of left out. Each command names its keys itself;
 * {@link styled} is the last step before printing, so a `Date`, a camelCase key from a stored record
 * (an audit event's details) or an empty time cannot slip out in another shape.
 */
import { terminalJson } from '@school/shared';
import type { AuditEvent } from '../audit/audit-log.js';

/** `clientId` → `client_id`; a key already in snake_case is kept. */
export const snakeCase = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();

/**
 * `value` as the commands print it: every `Date` as its ISO 8601 UTC string, every key in
 * snake_case, and nothing under a key whose value is undefined, or null under a time's key (`_at`).
 */
export function styled(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(styled);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const name = snakeCase(key);
    if (v === undefined || (v === null && name.endsWith('_at'))) continue;
    out[name] = styled(v);
  }
  return out;
}

/** A time as every command prints it: ISO 8601 in UTC, from Unix seconds; undefined when there is none. */
export const isoTime = (seconds: number | undefined) =>
  seconds === undefined ? undefined : new Date(seconds * 1000).toISOString();

/** Prints `value` as indented JSON in the commands' style, what a terminal would act on escaped. */
export const print = (value: unknown) => console.log(terminalJson(styled(value), 2));

/** `value` as one line of JSON in the commands' style (for the commands that print a line each). */
export const jsonLine = (value: unknown) => terminalJson(styled(value));

/** A string that is a time, as the audit log's details store one (`ends`: ISO 8601 in UTC). */
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** An event's details with each time as every command prints one: ISO 8601, under a key ending `_at`. */
const detailsJson = (details: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(details).map(([key, value]) =>
      typeof value === 'string' && TIME.test(value)
        ? [snakeCase(key).endsWith('_at') ? key : `${key}_at`, new Date(value).toISOString()]
        : [key, value],
    ),
  );

/**
 * An audit event as `audit` and `activity --json` print it: its id as `event_id`, its time as
 * `recorded_at`, and a time among its details (a grant's `ends`) as `ends_at`.
 */
export const eventJson = ({ _id, type, at, details, ...rest }: AuditEvent) => ({
  event_id: _id,
  type,
  recorded_at: at,
  ...rest,
  details: details && detailsJson(details),
});
