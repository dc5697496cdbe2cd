/**
 * Text a client supplies that a person will read (a client's name on the consent page, in the
 * admin's lists, in the audit log). Control characters can truncate or corrupt what is shown (NUL,
 * escape sequences in a terminal reading the logs), and bidirectional controls reorder the text
 * around them, so `U+202E` can make "Evil" read as "liveE" or turn the page's own words backwards.
 * Such text is refused where it enters (registration), never silently altered.
 */

/** C0 and C1 controls and DEL (`\p{Cc}`), and the Unicode bidirectional formatting characters. */
const UNDISPLAYABLE = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** The first character of `text` that must not be shown to a person, as `U+XXXX`, or undefined. */
export function undisplayableCharacter(text: string): string | undefined {
  const found = UNDISPLAYABLE.exec(text);
  return found ? `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` : undefined;
}
