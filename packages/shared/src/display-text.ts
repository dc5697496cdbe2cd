/**
 * The one rule for text a person reads as a name: a client's name (open registration, Client ID
 * Metadata Documents, operator clients) and its other metadata, an account's display name (Staff
 * accounts, the `school-auth` command, seed-admin, the resource API's `PATCH /api/v1/account`), a
 * passkey's name. Such text is refused where it enters, never silently altered.
 *
 * Refused, by Unicode property rather than by a list:
 * - controls (`\p{Cc}`: C0, DEL, C1): they truncate or corrupt what is shown, and drive terminals;
 * - format characters (`\p{Cf}`): the bidirectional controls, which reorder the text around them
 *   (`U+202E` makes "Evil" read "liveE"), and the invisible ones (zero-width space and joiners,
 *   word joiner, byte-order mark, soft hyphen, tag characters), which let two names that read the
 *   same differ, so an app can pass for the school's own console;
 * - every other default-ignorable code point (`\p{Default_Ignorable_Code_Point}`: fillers, variation
 *   selectors), invisible by definition;
 * - private-use (`\p{Co}`), unassigned (`\p{Cn}`) and lone surrogate (`\p{Cs}`) code points, which
 *   show as nothing or as whatever a font decides, and the line and paragraph separators;
 * - a run of more than {@link MAX_MARKS} combining marks (`\p{M}`), which stacks over the text around
 *   it; real words in any script need no more.
 */
import type { z } from 'zod';

/** Combining marks one character may carry (Vietnamese, Devanagari and the like use up to three). */
export const MAX_MARKS = 3;

const UNDISPLAYABLE =
  /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|\p{M}{4,}/u;

/**
 * What in `text` must not be shown to a person: the first such character as `U+XXXX`, or a run of
 * combining marks as `N combining marks in a row`; undefined when there is none.
 */
export function undisplayableCharacter(text: string): string | undefined {
  const found = UNDISPLAYABLE.exec(text);
  if (!found) return undefined;
  const [match] = found;
  if ([...match].length > 1) return `${[...match].length} combining marks in a row`;
  return `U+${match.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Why `text` breaks the rule, as a sentence ending the name of the field; undefined when it does not. */
export function displayTextProblem(text: string): string | undefined {
  const bad = undisplayableCharacter(text);
  return bad
    ? `must not contain control, invisible, formatting or bidirectional characters, nor more than ${MAX_MARKS} combining marks in a row (found ${bad})`
    : undefined;
}

/**
 * `schema` (a string schema) held to the display rule: text that breaks it is a zod issue carrying
 * the rule's words, for inputs checked with zod (the resource API's name fields).
 */
export function followingDisplayRule<T extends z.ZodType<string>>(schema: T): T {
  return schema.refine((text) => undisplayableCharacter(text) === undefined, {
    error: (issue) => displayTextProblem(issue.input as string),
  });
}
