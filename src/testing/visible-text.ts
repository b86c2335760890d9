/**
 * Text that must show something (VISIBLE_TEXT_PATTERN, EMPTY_OR_VISIBLE_TEXT_PATTERN in
 * http/schemas.ts): values each refuses, values each accepts, and the 400 messages naming the field.
 */

/** A blank value (a space, a no-break and an ideographic space) and one holding a control character (a tab). */
export const NOT_VISIBLE_TEXTS = [' \u00a0\u3000', 'Ada\tLovelace'] as const;

/** Text that shows something: spaces inside and around, letters beyond ASCII. */
export const VISIBLE_TEXT = ' Zoë  東京 ';

/** The 400 message of a field that must show something. */
export function notVisibleMessage(field: string): string {
  return `${field}: must contain a character other than white space, and no control characters`;
}

/** The 400 message of a field that may be empty but otherwise must show something. */
export function notEmptyOrVisibleMessage(field: string): string {
  return `${field}: must be empty, or contain a character other than white space, and no control characters`;
}
