/**
 * How long an app's access lasts, as the admin chooses it on the consent page: one hour, until the end
 * of the school's day, until the end of its week (Monday to Sunday), until the end of its term (the day
 * `SCHOOL_TERM_ENDS`, offered only while it is ahead), or until revoked (the grant's configured
 * lifetime, `GRANT_TTL`). Days and weeks end at midnight in `SCHOOL_TIMEZONE` (luxon does the calendar).
 * The end becomes the grant's `exp`: refresh, introspection and the access tokens' lifetime follow it.
 *
 * The end is the whole grant's, so a repeat or step-up consent (the app holds access already) offers
 * first to keep the end it has ({@link KEEP_END}) and preselects that: asking for one more scope never
 * moves the end of what was allowed before unless the admin picks another end.
 */
import { DateTime } from 'luxon';

/** The choices, shortest first. */
export const DURATIONS = ['hour', 'today', 'week', 'term', 'revoked'] as const;
export type Duration = (typeof DURATIONS)[number];

/** The Allow form's value for "keep the end the app's access has now" (a repeat or step-up consent). */
export const KEEP_END = 'current';
/** What the Allow form may answer to "For how long?". */
export const DURATION_ANSWERS = [...DURATIONS, KEEP_END] as const;
export type DurationAnswer = (typeof DURATION_ANSWERS)[number];

/** What the ends are computed from (configuration). */
export interface AccessCalendar {
  /** IANA time zone of the school, e.g. `Europe/Berlin`. */
  timezone: string;
  /** The last day of the term, `YYYY-MM-DD`, when the school set one. */
  termEnds?: string;
  /** Seconds "until revoked" lasts: the grant's configured lifetime. */
  grantTtl: number;
}

/** One choice as the page offers it. */
export interface DurationChoice {
  value: Duration;
  label: string;
  /** Unix seconds the access ends. */
  ends: number;
}

const LABELS: Record<Duration, string> = {
  hour: 'One hour',
  today: 'Today',
  week: 'This week',
  term: 'This term',
  revoked: 'Until I take it back',
};

/** Unix seconds the access chosen as `duration` at `now` ends; `undefined` when it is not on offer. */
export function accessEnds(duration: Duration, now: Date, calendar: AccessCalendar): number | undefined {
  const local = DateTime.fromJSDate(now).setZone(calendar.timezone);
  const at = (end: DateTime) => Math.floor(end.toSeconds()) + 1; // the first second after the last one
  const nowSeconds = Math.floor(now.getTime() / 1000);
  switch (duration) {
    case 'hour':
      return nowSeconds + 3600;
    case 'today':
      return at(local.endOf('day'));
    case 'week':
      return at(local.endOf('week'));
    case 'term': {
      if (!calendar.termEnds) return undefined;
      const ends = at(DateTime.fromISO(calendar.termEnds, { zone: calendar.timezone }).endOf('day'));
      return ends > nowSeconds ? ends : undefined;
    }
    case 'revoked':
      return nowSeconds + calendar.grantTtl;
  }
}

/**
 * Unix seconds the grant ends after a consent answered `answer` at `now`, when it ends at `currentEnd`
 * now (undefined: the app holds no access yet). No answer is the page's preselected choice: the current
 * end, or "until I take it back" for a first consent. An answer the page did not offer (keeping an end
 * there is none of, a term already over) is the shortest: a form never gets more than the page offered.
 */
export function chosenEnd(
  answer: DurationAnswer | undefined,
  currentEnd: number | undefined,
  now: Date,
  calendar: AccessCalendar,
): number {
  const shortest = accessEnds('hour', now, calendar)!;
  if (answer === undefined) return currentEnd ?? accessEnds('revoked', now, calendar)!;
  if (answer === KEEP_END) return currentEnd ?? shortest;
  return accessEnds(answer, now, calendar) ?? shortest;
}

/**
 * The choices on offer at `now`, shortest first, with when each ends. Two choices that end at the
 * same moment are one: the first of them is kept ("Today" on a Sunday, not also "This week"; "This
 * week" when the term ends that Sunday, not also "This term").
 */
export function durationChoices(now: Date, calendar: AccessCalendar): DurationChoice[] {
  const offered: DurationChoice[] = [];
  for (const value of DURATIONS) {
    const ends = accessEnds(value, now, calendar);
    if (ends !== undefined && !offered.some((c) => c.ends === ends))
      offered.push({ value, label: LABELS[value], ends });
  }
  return offered;
}

/** A date and time in the school's zone, as the pages show an end: "Fri 27 Nov 2026, 23:59". */
export function schoolTime(unixSeconds: number, timezone: string): string {
  return DateTime.fromSeconds(unixSeconds - 1, { zone: timezone }).toFormat('ccc d LLL yyyy, HH:mm');
}
