import { describe, expect, it } from '@jest/globals';
import { accessEnds, chosenEnd, durationChoices, schoolTime } from './access-duration.js';

// Friday 27 November 2026, 10:00 UTC (11:00 in Berlin, where midnight is 23:00 UTC in winter).
const now = new Date(Date.UTC(2026, 10, 27, 10, 0, 0));
const at = (...parts: [number, number, number, number]) => Date.UTC(...parts) / 1000;
const berlin = { timezone: 'Europe/Berlin', termEnds: '2026-12-18', grantTtl: 86_400 * 365 };

describe('how long access lasts', () => {
  it('ends one hour from now, at the school’s midnight today, and at the end of its Sunday', () => {
    expect(accessEnds('hour', now, berlin)).toBe(at(2026, 10, 27, 11));
    expect(accessEnds('today', now, berlin)).toBe(at(2026, 10, 27, 23));
    expect(accessEnds('week', now, berlin)).toBe(at(2026, 10, 29, 23));
    expect(accessEnds('today', now, { ...berlin, timezone: 'UTC' })).toBe(at(2026, 10, 28, 0));
  });

  it('ends the term at the end of its last day, and offers it only while that day is ahead', () => {
    expect(accessEnds('term', now, berlin)).toBe(at(2026, 11, 18, 23));
    expect(durationChoices(now, berlin).map((c) => c.value)).toEqual([
      'hour',
      'today',
      'week',
      'term',
      'revoked',
    ]);
    const past = { ...berlin, termEnds: '2026-11-26' };
    expect(accessEnds('term', now, past)).toBeUndefined();
    expect(durationChoices(now, past).map((c) => c.value)).toEqual(['hour', 'today', 'week', 'revoked']);
    const unset = { timezone: 'UTC', grantTtl: 60 };
    expect(durationChoices(now, unset).map((c) => c.value)).toEqual(['hour', 'today', 'week', 'revoked']);
  });

  it('offers no two choices that end at the same moment', () => {
    // Sunday 29 November 2026, 10:00 UTC: today and this week end at the same midnight.
    const sunday = new Date(Date.UTC(2026, 10, 29, 10, 0, 0));
    expect(durationChoices(sunday, berlin).map((c) => c.value)).toEqual(['hour', 'today', 'term', 'revoked']);
    // The term ends on this week's Sunday: "This week" says it.
    expect(durationChoices(now, { ...berlin, termEnds: '2026-11-29' }).map((c) => c.value)).toEqual([
      'hour',
      'today',
      'week',
      'revoked',
    ]);
    // The term's last day is today.
    expect(durationChoices(now, { ...berlin, termEnds: '2026-11-27' }).map((c) => c.value)).toEqual([
      'hour',
      'today',
      'week',
      'revoked',
    ]);
    // On Sunday with the term ending that day: one choice for the three.
    const ends = durationChoices(sunday, { ...berlin, termEnds: '2026-11-29' });
    expect(ends.map((c) => [c.value, c.ends])).toEqual([
      ['hour', at(2026, 10, 29, 11)],
      ['today', at(2026, 10, 29, 23)],
      ['revoked', at(2026, 10, 29, 10) + 86_400 * 365],
    ]);
  });

  it('lasts the configured grant lifetime until revoked', () => {
    expect(accessEnds('revoked', now, { timezone: 'UTC', grantTtl: 600 })).toBe(at(2026, 10, 27, 10) + 600);
  });

  it('shows an end as the last minute it still holds, in the school’s zone', () => {
    expect(schoolTime(at(2026, 10, 27, 23), 'Europe/Berlin')).toBe('Fri 27 Nov 2026, 23:59');
  });

  it('keeps the end access has when the form keeps it or says nothing, and never invents one', () => {
    const current = at(2026, 10, 27, 11); // "one hour", chosen earlier
    expect(chosenEnd('current', current, now, berlin)).toBe(current);
    expect(chosenEnd(undefined, current, now, berlin)).toBe(current);
    expect(chosenEnd('week', current, now, berlin)).toBe(at(2026, 10, 29, 23));
    // A first consent: nothing said is the preselected "until I take it back"; "keep" is not on offer.
    expect(chosenEnd(undefined, undefined, now, berlin)).toBe(now.getTime() / 1000 + 86_400 * 365);
    expect(chosenEnd('current', undefined, now, berlin)).toBe(at(2026, 10, 27, 11));
  });
});
