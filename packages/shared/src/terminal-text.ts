/**
 * Text printed to an operator's terminal (the `school-auth` command). Much of what it prints was
 * chosen by someone else: an app's id and name, an email typed into a form, an address. Printed as
 * is, a newline forges a line of output, an ESC or C1 control starts an escape sequence the terminal
 * obeys (colours, cursor moves, an OSC that retitles the window or writes the clipboard), and a
 * bidirectional control reorders what follows. So every such character is shown as an escape
 * (`\x1b`, `\u202e`, `\u{e0041}`), and a backslash as `\\`, so that an escape shown cannot be
 * mistaken for one typed.
 */

/**
 * Controls (C0, DEL, C1), format characters (bidi controls, zero-width characters, tags),
 * private-use, unassigned and lone surrogate code points, and the line and paragraph separators.
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}]/gu;

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** `text` with every unprintable character (and the backslash) shown as an escape. */
export function terminalSafe(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(UNPRINTABLE, (c) => {
    const code = c.codePointAt(0)!;
    if (code <= 0xff) return `\\x${hex(code, 2)}`;
    if (code <= 0xffff) return `\\u${hex(code, 4)}`;
    return `\\u{${hex(code, 1)}}`;
  });
}

/**
 * `value` as JSON in which no unprintable character appears as itself: JSON.stringify escapes C0
 * controls in strings only, so the others are escaped here as `\uXXXX` (per UTF-16 unit), which JSON
 * reads back as the same text. The newlines of an indented layout are JSON's own and stay.
 */
export function terminalJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(UNPRINTABLE, (c) =>
    c === '\n' ? c : [...Array(c.length).keys()].map((i) => `\\u${hex(c.charCodeAt(i), 4)}`).join(''),
  );
}
