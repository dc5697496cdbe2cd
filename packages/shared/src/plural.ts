/**
 * Counts in words, the one way every page and command writes them: "1 account", "3 accounts",
 * "0 accounts", and a wait in whole minutes ("1 minute", "5 minutes"), never "minute(s)".
 */

/** `count` and the noun in the number it takes; `many` for a plural not made with `s`. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** A wait of `seconds` in whole minutes, rounded up, at least one: "1 minute", "5 minutes". */
export function minutesText(seconds: number): string {
  return plural(Math.max(1, Math.ceil(seconds / 60)), 'minute');
}
