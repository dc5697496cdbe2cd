/**
 * The audit log a page at a time, newest first, for the Activity page and `school-auth activity`.
 * The cursor names the last event of the previous page (its time and id, `<ms>_<uuid>`), so a page
 * is one indexed query (audit-log.ts) however deep it is, and events recorded meanwhile never shift
 * the pages already seen. A cursor that does not read as one starts from the newest event.
 */
import type { AuditEvent, AuditLog, AuditQuery } from './audit-log.js';

/** What the Activity page filters by. */
export type ActivityFilter = Pick<AuditQuery, 'type' | 'clientId' | 'accountId'>;

/** One page of events, and the cursor of the next when there are older ones. */
export interface ActivityPage {
  events: AuditEvent[];
  next?: string;
}

/** The most events one page may hold. */
export const MAX_ACTIVITY_PAGE = 200;

const CURSOR = /^(\d{1,15})_([0-9a-f-]{36})$/;

/** The cursor of the page after `event`. */
export function activityCursor(event: Pick<AuditEvent, 'at' | '_id'>): string {
  return `${new Date(event.at).getTime()}_${event._id}`;
}

function parseCursor(cursor: string | undefined): AuditQuery['before'] {
  const m = cursor ? CURSOR.exec(cursor) : null;
  return m ? { at: new Date(Number(m[1])), _id: m[2]! } : undefined;
}

/** The `pageSize` newest events matching `filter` older than `cursor`. */
export async function activityPage(
  audit: AuditLog,
  filter: ActivityFilter,
  { cursor, pageSize = 50 }: { cursor?: string; pageSize?: number } = {},
): Promise<ActivityPage> {
  const size = Math.max(1, Math.min(pageSize, MAX_ACTIVITY_PAGE));
  const found = await audit.query({ ...filter, before: parseCursor(cursor), limit: size + 1 });
  const events = found.slice(0, size);
  return { events, next: found.length > size ? activityCursor(events[events.length - 1]!) : undefined };
}
